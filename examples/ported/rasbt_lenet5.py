"""Port of rasbt/deeplearning-models ``pytorch_ipynb/cnn/cnn-lenet5-mnist.ipynb``:
LeNet-5 (two 5x5 ``Conv2d`` with ``MaxPool2d``, ``torch.flatten`` and three ``Linear``
layers, as the stored revision writes them: no activations between them) on 32x32 MNIST,
Adam, ``compute_accuracy`` under ``set_grad_enabled(False)``, the first test image as an
HWC array by ``np.transpose`` and its class-7 probability.

deeplearning-models is MIT-licensed, Copyright (c) 2019 Sebastian Raschka.

Ported by changing the imports (``import pyad as torch``). MNIST resized to 32x32
(torchvision) is synthetic images of that shape in [0, 1] (of the default dtype) and
random labels in ``TensorDataset``s; ``print`` is ``log``; the notebook's cells run in
order in ``run``, whose keyword arguments are the epochs, batch size, set sizes and the
training loader's shuffling (the text's sizes are only hyperparameters: smaller in the
tests). The text's ``DEVICE = "cuda:0"`` is ``"cuda:0"`` where CUDA is available and
``"cpu"`` otherwise (``model.to("cuda:0")`` raises on a CPU-only build, in torch as in
pyad); the ``imshow`` is dropped and the image it shows is returned, as are each step's
loss, each epoch's training accuracy, the test accuracy and the printed probability. The
text's ``np.transpose(features[0], axes=(1, 2, 0))`` relies on ``Tensor.__array_wrap__``
(NumPy's fallback wraps the transposed array back into a tensor, whose ``.numpy()`` the
next line calls); pyad's Variable has no ``__array_wrap__``, so the default writes
``features[0].permute(1, 2, 0)`` (the same array on torch), and
``verbatim_transpose=True`` runs the text's line (a strict xfail on pyad, passing on
torch). The ``%watermark`` cells are dropped.

Run it with ``python examples/ported/rasbt_lenet5.py``.
"""
import time

import numpy as np


def run(torch, NUM_EPOCHS=10, BATCH_SIZE=128, n_train=512, n_test=128, shuffle=True,
        verbatim_transpose=False, seed=0, init=None, log=print):
    nn = torch.nn
    F = torch.nn.functional
    DataLoader = torch.utils.data.DataLoader
    rng = np.random.RandomState(seed)
    results = []

    def mnist(n):
        return torch.utils.data.TensorDataset(
            torch.tensor(rng.rand(n, 1, 32, 32), dtype=torch.get_default_dtype()),
            torch.from_numpy(rng.randint(0, 10, n)))

    if torch.cuda.is_available():
        torch.backends.cudnn.deterministic = True

    ##########################
    ### SETTINGS
    ##########################

    # Hyperparameters
    RANDOM_SEED = 1
    LEARNING_RATE = 0.001

    # Architecture
    NUM_FEATURES = 32*32
    NUM_CLASSES = 10

    # Other
    DEVICE = "cuda:0" if torch.cuda.is_available() else "cpu"
    GRAYSCALE = True

    ##########################
    ### MNIST DATASET
    ##########################

    # Note transforms.ToTensor() scales input images
    # to 0-1 range
    train_dataset = mnist(n_train)

    test_dataset = mnist(n_test)


    train_loader = DataLoader(dataset=train_dataset,
                              batch_size=BATCH_SIZE,
                              shuffle=shuffle)

    test_loader = DataLoader(dataset=test_dataset,
                             batch_size=BATCH_SIZE,
                             shuffle=False)

    # Checking the dataset
    for images, labels in train_loader:
        log('Image batch dimensions:', images.shape)
        log('Image label dimensions:', labels.shape)
        break

    device = torch.device(DEVICE)
    torch.manual_seed(0)

    for epoch in range(2):

        for batch_idx, (x, y) in enumerate(train_loader):

            log('Epoch:', epoch+1, end='')
            log(' | Batch index:', batch_idx, end='')
            log(' | Batch size:', y.size()[0])

            x = x.to(device)
            y = y.to(device)
            break

    ##########################
    ### MODEL
    ##########################


    class LeNet5(nn.Module):

        def __init__(self, num_classes, grayscale=False):
            super(LeNet5, self).__init__()

            self.grayscale = grayscale
            self.num_classes = num_classes

            if self.grayscale:
                in_channels = 1
            else:
                in_channels = 3

            self.features = nn.Sequential(

                nn.Conv2d(in_channels, 6, kernel_size=5),
                nn.MaxPool2d(kernel_size=2),
                nn.Conv2d(6, 16, kernel_size=5),
                nn.MaxPool2d(kernel_size=2)
            )

            self.classifier = nn.Sequential(
                nn.Linear(16*5*5, 120),
                nn.Linear(120, 84),
                nn.Linear(84, num_classes),
            )


        def forward(self, x):
            x = self.features(x)
            x = torch.flatten(x, 1)
            logits = self.classifier(x)
            probas = F.softmax(logits, dim=1)
            return logits, probas

    torch.manual_seed(RANDOM_SEED)

    model = LeNet5(NUM_CLASSES, GRAYSCALE)
    model.to(DEVICE)
    if init is not None:
        init(model)

    optimizer = torch.optim.Adam(model.parameters(), lr=LEARNING_RATE)

    ## Training

    def compute_accuracy(model, data_loader, device):
        correct_pred, num_examples = 0, 0
        for i, (features, targets) in enumerate(data_loader):

            features = features.to(device)
            targets = targets.to(device)

            logits, probas = model(features)
            _, predicted_labels = torch.max(probas, 1)
            num_examples += targets.size(0)
            correct_pred += (predicted_labels == targets).sum()
        return correct_pred.float()/num_examples * 100


    start_time = time.time()
    for epoch in range(NUM_EPOCHS):

        model.train()
        for batch_idx, (features, targets) in enumerate(train_loader):

            features = features.to(DEVICE)
            targets = targets.to(DEVICE)

            ### FORWARD AND BACK PROP
            logits, probas = model(features)
            cost = F.cross_entropy(logits, targets)
            optimizer.zero_grad()

            cost.backward()

            ### UPDATE MODEL PARAMETERS
            optimizer.step()
            results.append(cost.item())

            ### LOGGING
            if not batch_idx % 50:
                log ('Epoch: %03d/%03d | Batch %04d/%04d | Cost: %.4f'
                       %(epoch+1, NUM_EPOCHS, batch_idx,
                         len(train_loader), cost))



        model.eval()
        with torch.set_grad_enabled(False): # save memory during inference
            accuracy = compute_accuracy(model, train_loader, device=DEVICE)
            results.append(float(accuracy))
            log('Epoch: %03d/%03d | Train: %.3f%%' % (
                  epoch+1, NUM_EPOCHS,
                  accuracy))

        log('Time elapsed: %.2f min' % ((time.time() - start_time)/60))

    log('Total Training Time: %.2f min' % ((time.time() - start_time)/60))

    ## Evaluation

    with torch.set_grad_enabled(False): # save memory during inference
        accuracy = compute_accuracy(model, test_loader, device=DEVICE)
        results.append(float(accuracy))
        log('Test accuracy: %.2f%%' % (accuracy))

    for batch_idx, (features, targets) in enumerate(test_loader):

        features = features
        targets = targets
        break


    if verbatim_transpose:
        nhwc_img = np.transpose(features[0], axes=(1, 2, 0))
    else:
        nhwc_img = features[0].permute(1, 2, 0)
    nhw_img = np.squeeze(nhwc_img.numpy(), axis=2)

    model.eval()
    logits, probas = model(features.to(device)[0, None])
    log('Probability 7 %.2f%%' % (probas[0][7]*100))
    results.append(float(probas[0][7]*100))
    return results, nhw_img


if __name__ == "__main__":
    import pyad as torch
    run(torch)
