"""Port of pytorch/examples ``vision_transformer``: a ViT (patches cut by
``Tensor.unfold``, a linear projection, a learned class token and position embedding,
encoder blocks of ``LayerNorm``, ``nn.MultiheadAttention`` and a ``GELU`` MLP, a
``LayerNorm``/``Linear`` head) trained with ``CrossEntropyLoss`` and Adam with weight
decay.

Ported by changing the imports (``import pyad as torch``). CIFAR-10 is replaced by
synthetic images of a smaller size (``img_size``), batched by hand instead of through
``DataLoader``; the sizes are shrunk, tqdm's progress bars are replaced by ``log`` and
the best-weights checkpoint is left out. The original's ``args`` are the keyword
arguments of ``run``.

Run it with ``python examples/ported/vision_transformer.py``.
"""
import types

import numpy as np


def build(torch):
    """main.py's model classes for the namespace ``torch``."""
    nn = torch.nn

    class PatchExtractor(nn.Module):
        def __init__(self, patch_size=16):
            super().__init__()
            self.patch_size = patch_size

        def forward(self, input_data):
            batch_size, channels, height, width = input_data.size()
            assert height % self.patch_size == 0 and width % self.patch_size == 0, \
                f"Input height ({height}) and width ({width}) must be divisible by patch size ({self.patch_size})"

            num_patches_h = height // self.patch_size
            num_patches_w = width // self.patch_size
            num_patches = num_patches_h * num_patches_w

            patches = input_data.unfold(2, self.patch_size, self.patch_size). \
                unfold(3, self.patch_size, self.patch_size). \
                permute(0, 2, 3, 1, 4, 5). \
                contiguous(). \
                view(batch_size, num_patches, -1)

            # Expected shape of a patch on default settings is (4, 196, 768)

            return patches

    class InputEmbedding(nn.Module):

        def __init__(self, args):
            super(InputEmbedding, self).__init__()
            self.patch_size = args.patch_size
            self.n_channels = args.n_channels
            self.latent_size = args.latent_size
            use_cuda = not args.no_cuda and torch.cuda.is_available()
            self.device = torch.device("cuda" if use_cuda else "cpu")
            self.batch_size = args.batch_size
            self.input_size = self.patch_size * self.patch_size * self.n_channels

            # Linear projection
            self.LinearProjection = nn.Linear(self.input_size, self.latent_size)
            # Class token
            self.class_token = nn.Parameter(torch.randn(self.batch_size, 1, self.latent_size).to(self.device))
            # Positional embedding
            self.pos_embedding = nn.Parameter(torch.randn(self.batch_size, 1, self.latent_size).to(self.device))

        def forward(self, input_data):
            input_data = input_data.to(self.device)
            # Patchifying the Image
            patchify = PatchExtractor(patch_size=self.patch_size)
            patches = patchify(input_data)

            linear_projection = self.LinearProjection(patches).to(self.device)
            b, n, _ = linear_projection.shape
            linear_projection = torch.cat((self.class_token, linear_projection), dim=1)
            pos_embed = self.pos_embedding[:, :n + 1, :]
            linear_projection += pos_embed

            return linear_projection

    class EncoderBlock(nn.Module):

        def __init__(self, args):
            super(EncoderBlock, self).__init__()

            self.latent_size = args.latent_size
            self.num_heads = args.num_heads
            self.dropout = args.dropout
            self.norm = nn.LayerNorm(self.latent_size)
            self.attention = nn.MultiheadAttention(self.latent_size, self.num_heads, dropout=self.dropout)
            self.enc_MLP = nn.Sequential(
                nn.Linear(self.latent_size, self.latent_size * 4),
                nn.GELU(),
                nn.Dropout(self.dropout),
                nn.Linear(self.latent_size * 4, self.latent_size),
                nn.Dropout(self.dropout)
            )

        def forward(self, emb_patches):
            first_norm = self.norm(emb_patches)
            attention_out = self.attention(first_norm, first_norm, first_norm)[0]
            first_added = attention_out + emb_patches
            second_norm = self.norm(first_added)
            mlp_out = self.enc_MLP(second_norm)
            output = mlp_out + first_added

            return output

    class ViT(nn.Module):
        def __init__(self, args):
            super(ViT, self).__init__()

            self.num_encoders = args.num_encoders
            self.latent_size = args.latent_size
            self.num_classes = args.num_classes
            self.dropout = args.dropout

            self.embedding = InputEmbedding(args)
            # Encoder Stack
            self.encoders = nn.ModuleList([EncoderBlock(args) for _ in range(self.num_encoders)])
            self.MLPHead = nn.Sequential(
                nn.LayerNorm(self.latent_size),
                nn.Linear(self.latent_size, self.latent_size),
                nn.Linear(self.latent_size, self.num_classes),
            )

        def forward(self, test_input):
            enc_output = self.embedding(test_input)
            for enc_layer in self.encoders:
                enc_output = enc_layer(enc_output)

            class_token_embed = enc_output[:, 0]
            return self.MLPHead(class_token_embed)

    return ViT


def run(torch, patch_size=4, latent_size=32, n_channels=3, num_heads=4, num_encoders=2,
        dropout=0.1, img_size=16, num_classes=10, epochs=2, lr=1e-2, weight_decay=3e-2,
        batch_size=4, n_batches=3, seed=0, init=None, log=print):
    """Train for ``epochs``; return every training loss and each epoch's validation
    losses."""
    nn = torch.nn
    optim = torch.optim
    args = types.SimpleNamespace(
        no_cuda=True, patch_size=patch_size, latent_size=latent_size,
        n_channels=n_channels, num_heads=num_heads, num_encoders=num_encoders,
        dropout=dropout, img_size=img_size, num_classes=num_classes, epochs=epochs,
        lr=lr, weight_decay=weight_decay, batch_size=batch_size, dry_run=False)
    ViT = build(torch)
    torch.manual_seed(seed)
    rng = np.random.RandomState(seed)

    def loader(batches):
        images = rng.rand(batches, batch_size, n_channels, img_size, img_size)
        labels = rng.randint(0, num_classes, (batches, batch_size))
        return [(torch.from_numpy(x.astype(np.float32)), torch.from_numpy(y))
                for x, y in zip(images, labels)]

    results = []

    class TrainEval:

        def __init__(self, args, model, train_dataloader, val_dataloader, optimizer, criterion, device):
            self.model = model
            self.train_dataloader = train_dataloader
            self.val_dataloader = val_dataloader
            self.optimizer = optimizer
            self.criterion = criterion
            self.epoch = args.epochs
            self.device = device
            self.args = args

        def train_fn(self, current_epoch):
            self.model.train()
            total_loss = 0.0

            for t, data in enumerate(self.train_dataloader):
                images, labels = data
                images, labels = images.to(self.device), labels.to(self.device)
                self.optimizer.zero_grad()
                logits = self.model(images)
                loss = self.criterion(logits, labels)
                loss.backward()
                self.optimizer.step()

                total_loss += loss.item()
                results.append(loss.item())
                log("EPOCH[TRAIN]%d/%d Loss %6f" % (current_epoch + 1, self.epoch,
                                                   float(total_loss / (t + 1))))

            return total_loss / len(self.train_dataloader)

        def eval_fn(self, current_epoch):
            self.model.eval()
            total_loss = 0.0

            for t, data in enumerate(self.val_dataloader):
                images, labels = data
                images, labels = images.to(self.device), labels.to(self.device)

                logits = self.model(images)
                loss = self.criterion(logits, labels)

                total_loss += loss.item()
                results.append(loss.item())
                log("EPOCH[VALID]%d/%d Loss %6f" % (current_epoch + 1, self.epoch,
                                                   float(total_loss / (t + 1))))

            return total_loss / len(self.val_dataloader)

        def train(self):
            best_valid_loss = np.inf
            best_train_loss = np.inf
            for i in range(self.epoch):
                train_loss = self.train_fn(i)
                val_loss = self.eval_fn(i)

                if val_loss < best_valid_loss:
                    best_valid_loss = val_loss
                    best_train_loss = train_loss
            log(f"Training Loss : {best_train_loss}")
            log(f"Valid Loss : {best_valid_loss}")

    device = torch.device("cpu")
    train_loader = loader(n_batches)
    valid_loader = loader(n_batches)

    model = ViT(args).to(device)
    if init is not None:
        init(model)

    optimizer = optim.Adam(model.parameters(), lr=args.lr, weight_decay=args.weight_decay)
    criterion = nn.CrossEntropyLoss()

    TrainEval(args, model, train_loader, valid_loader, optimizer, criterion, device).train()
    return results


if __name__ == "__main__":
    import pyad as torch
    run(torch)
