"""Port of pytorch/examples ``fast_neural_style`` (neural_style/transformer_net.py, the
``train`` loop of neural_style.py and utils.py's ``gram_matrix``/``normalize_batch``):
the image transformation network (``ReflectionPad2d`` + ``Conv2d`` layers,
``InstanceNorm2d(affine=True)``, five residual blocks, ``nn.Upsample`` nearest-neighbour
upsampling) trained with Adam on the content and style (Gram matrix) losses of a fixed
feature network.

Ported by changing the imports (``import pyad as torch``). The feature network is
vgg.py's ``Vgg16`` layout (the same four slices of 3x3 convolutions, ReLUs and max
pools, returning the ``VggOutputs`` namedtuple) with narrower layers and random frozen
weights instead of torchvision's pretrained VGG-16; the training images and the style
image are synthetic (values in [0, 255], as the original's ``x.mul(255)``), batched by
hand instead of through ``DataLoader``. Checkpointing and saving are left out.

Run it with ``python examples/ported/fast_neural_style.py``.
"""
from collections import namedtuple

import numpy as np


def build(torch):
    """transformer_net.py's classes and the stand-in ``Vgg16``, for the namespace
    ``torch``."""

    class TransformerNet(torch.nn.Module):
        def __init__(self):
            super(TransformerNet, self).__init__()
            # Initial convolution layers
            self.conv1 = ConvLayer(3, 32, kernel_size=9, stride=1)
            self.in1 = torch.nn.InstanceNorm2d(32, affine=True)
            self.conv2 = ConvLayer(32, 64, kernel_size=3, stride=2)
            self.in2 = torch.nn.InstanceNorm2d(64, affine=True)
            self.conv3 = ConvLayer(64, 128, kernel_size=3, stride=2)
            self.in3 = torch.nn.InstanceNorm2d(128, affine=True)
            # Residual layers
            self.res1 = ResidualBlock(128)
            self.res2 = ResidualBlock(128)
            self.res3 = ResidualBlock(128)
            self.res4 = ResidualBlock(128)
            self.res5 = ResidualBlock(128)
            # Upsampling Layers
            self.deconv1 = UpsampleConvLayer(128, 64, kernel_size=3, stride=1, upsample=2)
            self.in4 = torch.nn.InstanceNorm2d(64, affine=True)
            self.deconv2 = UpsampleConvLayer(64, 32, kernel_size=3, stride=1, upsample=2)
            self.in5 = torch.nn.InstanceNorm2d(32, affine=True)
            self.deconv3 = ConvLayer(32, 3, kernel_size=9, stride=1)
            # Non-linearities
            self.relu = torch.nn.ReLU()

        def forward(self, X):
            y = self.relu(self.in1(self.conv1(X)))
            y = self.relu(self.in2(self.conv2(y)))
            y = self.relu(self.in3(self.conv3(y)))
            y = self.res1(y)
            y = self.res2(y)
            y = self.res3(y)
            y = self.res4(y)
            y = self.res5(y)
            y = self.relu(self.in4(self.deconv1(y)))
            y = self.relu(self.in5(self.deconv2(y)))
            y = self.deconv3(y)
            return y

    class ConvLayer(torch.nn.Module):
        def __init__(self, in_channels, out_channels, kernel_size, stride):
            super(ConvLayer, self).__init__()
            reflection_padding = kernel_size // 2
            self.reflection_pad = torch.nn.ReflectionPad2d(reflection_padding)
            self.conv2d = torch.nn.Conv2d(in_channels, out_channels, kernel_size, stride)

        def forward(self, x):
            out = self.reflection_pad(x)
            out = self.conv2d(out)
            return out

    class ResidualBlock(torch.nn.Module):
        """ResidualBlock
        introduced in: https://arxiv.org/abs/1512.03385
        recommended architecture: http://torch.ch/blog/2016/02/04/resnets.html
        """

        def __init__(self, channels):
            super(ResidualBlock, self).__init__()
            self.conv1 = ConvLayer(channels, channels, kernel_size=3, stride=1)
            self.in1 = torch.nn.InstanceNorm2d(channels, affine=True)
            self.conv2 = ConvLayer(channels, channels, kernel_size=3, stride=1)
            self.in2 = torch.nn.InstanceNorm2d(channels, affine=True)
            self.relu = torch.nn.ReLU()

        def forward(self, x):
            residual = x
            out = self.relu(self.in1(self.conv1(x)))
            out = self.in2(self.conv2(out))
            out = out + residual
            return out

    class UpsampleConvLayer(torch.nn.Module):
        """UpsampleConvLayer
        Upsamples the input and then does a convolution. This method gives better results
        compared to ConvTranspose2d.
        ref: http://distill.pub/2016/deconv-checkerboard/
        """

        def __init__(self, in_channels, out_channels, kernel_size, stride, upsample=None):
            super(UpsampleConvLayer, self).__init__()
            self.upsample = upsample
            if upsample:
                self.upsample_layer = torch.nn.Upsample(mode='nearest', scale_factor=upsample)
            reflection_padding = kernel_size // 2
            self.reflection_pad = torch.nn.ReflectionPad2d(reflection_padding)
            self.conv2d = torch.nn.Conv2d(in_channels, out_channels, kernel_size, stride)

        def forward(self, x):
            x_in = x
            if self.upsample:
                x_in = self.upsample_layer(x_in)
            out = self.reflection_pad(x_in)
            out = self.conv2d(out)
            return out

    def vgg16_features(widths):
        """The first 23 modules of torchvision's ``vgg16().features``, ``widths`` wide."""
        nn = torch.nn
        a, b, c, d = widths
        return [nn.Conv2d(3, a, 3, padding=1), nn.ReLU(True),
                nn.Conv2d(a, a, 3, padding=1), nn.ReLU(True),
                nn.MaxPool2d(2, 2), nn.Conv2d(a, b, 3, padding=1), nn.ReLU(True),
                nn.Conv2d(b, b, 3, padding=1), nn.ReLU(True),
                nn.MaxPool2d(2, 2), nn.Conv2d(b, c, 3, padding=1), nn.ReLU(True),
                nn.Conv2d(c, c, 3, padding=1), nn.ReLU(True),
                nn.Conv2d(c, c, 3, padding=1), nn.ReLU(True),
                nn.MaxPool2d(2, 2), nn.Conv2d(c, d, 3, padding=1), nn.ReLU(True),
                nn.Conv2d(d, d, 3, padding=1), nn.ReLU(True),
                nn.Conv2d(d, d, 3, padding=1), nn.ReLU(True)]

    class Vgg16(torch.nn.Module):
        def __init__(self, requires_grad=False, widths=(8, 16, 32, 64)):
            super(Vgg16, self).__init__()
            vgg_pretrained_features = vgg16_features(widths)
            self.slice1 = torch.nn.Sequential()
            self.slice2 = torch.nn.Sequential()
            self.slice3 = torch.nn.Sequential()
            self.slice4 = torch.nn.Sequential()
            for x in range(4):
                self.slice1.add_module(str(x), vgg_pretrained_features[x])
            for x in range(4, 9):
                self.slice2.add_module(str(x), vgg_pretrained_features[x])
            for x in range(9, 16):
                self.slice3.add_module(str(x), vgg_pretrained_features[x])
            for x in range(16, 23):
                self.slice4.add_module(str(x), vgg_pretrained_features[x])
            if not requires_grad:
                for param in self.parameters():
                    param.requires_grad = False

        def forward(self, X):
            h = self.slice1(X)
            h_relu1_2 = h
            h = self.slice2(h)
            h_relu2_2 = h
            h = self.slice3(h)
            h_relu3_3 = h
            h = self.slice4(h)
            h_relu4_3 = h
            vgg_outputs = namedtuple("VggOutputs", ['relu1_2', 'relu2_2', 'relu3_3', 'relu4_3'])
            out = vgg_outputs(h_relu1_2, h_relu2_2, h_relu3_3, h_relu4_3)
            return out

    return TransformerNet, Vgg16


def run(torch, epochs=2, batch_size=2, n_batches=2, image_size=16, style_size=16,
        content_weight=1e5, style_weight=1e10, lr=1e-3, seed=42, init=None, log=print):
    """Train for ``epochs``; return the content and style losses of every batch."""
    Adam = torch.optim.Adam
    TransformerNet, Vgg16 = build(torch)

    def gram_matrix(y):
        (b, ch, h, w) = y.size()
        features = y.view(b, ch, w * h)
        features_t = features.transpose(1, 2)
        gram = features.bmm(features_t) / (ch * h * w)
        return gram

    def normalize_batch(batch):
        # normalize using imagenet mean and std
        mean = batch.new_tensor([0.485, 0.456, 0.406]).view(-1, 1, 1)
        std = batch.new_tensor([0.229, 0.224, 0.225]).view(-1, 1, 1)
        batch = batch.div_(255.0)
        return (batch - mean) / std

    device = torch.device("cpu")
    np.random.seed(seed)
    torch.manual_seed(seed)
    rng = np.random.RandomState(seed)
    images = rng.rand(n_batches, batch_size, 3, image_size, image_size) * 255
    train_loader = [(torch.from_numpy(x.astype(np.float32)), None) for x in images]

    transformer = TransformerNet().to(device)
    vgg = Vgg16(requires_grad=False).to(device)
    if init is not None:
        # one module holding both, so that the test copies the feature network too
        init(torch.nn.ModuleDict({"transformer": transformer, "vgg": vgg}))
    optimizer = Adam(transformer.parameters(), lr)
    mse_loss = torch.nn.MSELoss()

    style = torch.from_numpy((rng.rand(3, style_size, style_size) * 255).astype(np.float32))
    style = style.repeat(batch_size, 1, 1, 1).to(device)

    features_style = vgg(normalize_batch(style))
    gram_style = [gram_matrix(y) for y in features_style]

    losses = []
    for e in range(epochs):
        transformer.train()
        agg_content_loss = 0.
        agg_style_loss = 0.
        count = 0
        for batch_id, (x, _) in enumerate(train_loader):
            n_batch = len(x)
            count += n_batch
            optimizer.zero_grad()

            x = x.clone().to(device)  # normalize_batch divides in place: keep the data
            y = transformer(x.to(device))

            y = normalize_batch(y)
            x = normalize_batch(x)

            features_y = vgg(y)
            features_x = vgg(x)

            content_loss = content_weight * mse_loss(features_y.relu2_2, features_x.relu2_2)

            style_loss = 0.
            for ft_y, gm_s in zip(features_y, gram_style):
                gm_y = gram_matrix(ft_y)
                style_loss += mse_loss(gm_y, gm_s[:n_batch, :, :])
            style_loss *= style_weight

            total_loss = content_loss + style_loss
            total_loss.backward()
            optimizer.step()

            agg_content_loss += content_loss.item()
            agg_style_loss += style_loss.item()
            losses += [content_loss.item(), style_loss.item()]

            log("Epoch {}:\t[{}/{}]\tcontent: {:.6f}\tstyle: {:.6f}\ttotal: {:.6f}".format(
                e + 1, count, n_batches * batch_size,
                agg_content_loss / (batch_id + 1),
                agg_style_loss / (batch_id + 1),
                (agg_content_loss + agg_style_loss) / (batch_id + 1)))
    return losses


if __name__ == "__main__":
    import pyad as torch
    run(torch)
