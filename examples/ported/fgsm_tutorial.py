"""Port of the PyTorch tutorial "Adversarial Example Generation" (pytorch/tutorials
``beginner_source/fgsm_tutorial.py``): the MNIST LeNet under attack, ``fgsm_attack``
(``image + epsilon * data_grad.sign()``, clamped to [0, 1]) and the ``test`` function's
accuracy and adversarial examples for each epsilon.

Ported by changing the imports (``import pyad as torch``). MNIST's test set is replaced
by ``n_test`` synthetic 1x28x28 images in [0, 1] (NumPy, from ``seed``: 0.8 times a fixed
random binary pattern of the image's random label plus 0.2 times uniform noise), fed
through ``torch.utils.data.TensorDataset`` and the text's ``DataLoader(batch_size=1)``
(``shuffle`` is a keyword argument: the tests give both frameworks the same order with
``shuffle=False``); torchvision and the ``matplotlib`` plots are left out. The
pretrained weights are replaced by the model's own (``init`` sees it: the tests load
torch's initial weights), trained for ``train_steps`` full-batch Adam steps on the same
images first (not in the text), so that the model classifies most images right and the
attack has something to flip. ``data_grad = data.grad.data`` is
``data_grad = data.grad`` (``.data`` is the NumPy array in pyad, which has no ``sign``
method; ``data_data=True`` runs the original line). ``use_cuda`` is False. ``run``
returns each epsilon's accuracy and adversarial examples, and the training losses.

Run it with ``python examples/ported/fgsm_tutorial.py``.
"""
import numpy as np


def run(torch, n_test=40, train_steps=20, epsilons=(0, .05, .1, .15, .2, .25, .3),
        shuffle=True, data_data=False, seed=0, init=None, log=print):
    """Return ``{"accuracies", "examples", "train_losses"}``."""
    nn = torch.nn
    F = torch.nn.functional
    optim = torch.optim

    epsilons = list(epsilons)
    use_cuda = False

    # LeNet Model definition
    class Net(nn.Module):
        def __init__(self):
            super(Net, self).__init__()
            self.conv1 = nn.Conv2d(1, 10, kernel_size=5)
            self.conv2 = nn.Conv2d(10, 20, kernel_size=5)
            self.conv2_drop = nn.Dropout2d()
            self.fc1 = nn.Linear(320, 50)
            self.fc2 = nn.Linear(50, 10)

        def forward(self, x):
            x = F.relu(F.max_pool2d(self.conv1(x), 2))
            x = F.relu(F.max_pool2d(self.conv2_drop(self.conv2(x)), 2))
            x = x.view(-1, 320)
            x = F.relu(self.fc1(x))
            x = F.dropout(x, training=self.training)
            x = self.fc2(x)
            return F.log_softmax(x, dim=1)

    # MNIST Test dataset and dataloader declaration (synthetic images)
    rng = np.random.RandomState(seed)
    labels = rng.randint(0, 10, n_test)
    templates = rng.rand(10, 1, 28, 28)      # a pattern per class, under uniform noise
    pixels = 0.8 * (templates[labels] > 0.5) + 0.2 * rng.rand(n_test, 1, 28, 28)
    images = torch.from_numpy(pixels.astype(np.float32))
    targets = torch.from_numpy(labels)
    test_loader = torch.utils.data.DataLoader(
        torch.utils.data.TensorDataset(images, targets),
            batch_size=1, shuffle=shuffle)

    # Define what device we are using
    log("CUDA Available: ",torch.cuda.is_available())
    device = torch.device("cuda" if (use_cuda and torch.cuda.is_available()) else "cpu")

    # Initialize the network
    model = Net().to(device)
    if init is not None:
        init(model)

    # in place of the pretrained weights: a few full-batch steps, dropout off
    model.eval()
    train_losses = []
    trainer = optim.Adam(model.parameters(), lr=0.003)
    for _ in range(train_steps):
        trainer.zero_grad()
        train_loss = F.nll_loss(model(images), targets)
        train_loss.backward()
        trainer.step()
        train_losses.append(train_loss.item())

    # Set the model in evaluation mode. In this case this is for the Dropout layers
    model.eval()

    # FGSM attack code
    def fgsm_attack(image, epsilon, data_grad):
        # Collect the element-wise sign of the data gradient
        sign_data_grad = data_grad.sign()
        # Create the perturbed image by adjusting each pixel of the input image
        perturbed_image = image + epsilon*sign_data_grad
        # Adding clipping to maintain [0,1] range
        perturbed_image = torch.clamp(perturbed_image, 0, 1)
        # Return the perturbed image
        return perturbed_image

    def test( model, device, test_loader, epsilon ):

        # Accuracy counter
        correct = 0
        adv_examples = []

        # Loop over all examples in test set
        for data, target in test_loader:

            # Send the data and label to the device
            data, target = data.to(device), target.to(device)

            # Set requires_grad attribute of tensor. Important for Attack
            data.requires_grad = True

            # Forward pass the data through the model
            output = model(data)
            init_pred = output.max(1, keepdim=True)[1] # get the index of the max log-probability

            # If the initial prediction is wrong, dont bother attacking, just move on
            if init_pred.item() != target.item():
                continue

            # Calculate the loss
            loss = F.nll_loss(output, target)

            # Zero all existing gradients
            model.zero_grad()

            # Calculate gradients of model in backward pass
            loss.backward()

            # Collect datagrad
            data_grad = data.grad.data if data_data else data.grad

            # Call FGSM Attack
            perturbed_data = fgsm_attack(data, epsilon, data_grad)

            # Re-classify the perturbed image
            output = model(perturbed_data)

            # Check for success
            final_pred = output.max(1, keepdim=True)[1] # get the index of the max log-probability
            if final_pred.item() == target.item():
                correct += 1
                # Special case for saving 0 epsilon examples
                if (epsilon == 0) and (len(adv_examples) < 5):
                    adv_ex = perturbed_data.squeeze().detach().cpu().numpy()
                    adv_examples.append( (init_pred.item(), final_pred.item(), adv_ex) )
            else:
                # Save some adv examples for visualization later
                if len(adv_examples) < 5:
                    adv_ex = perturbed_data.squeeze().detach().cpu().numpy()
                    adv_examples.append( (init_pred.item(), final_pred.item(), adv_ex) )

        # Calculate final accuracy for this epsilon
        final_acc = correct/float(len(test_loader))
        log("Epsilon: {}\tTest Accuracy = {} / {} = {}".format(epsilon, correct, len(test_loader), final_acc))

        # Return the accuracy and an adversarial example
        return final_acc, adv_examples

    accuracies = []
    examples = []

    # Run test for each epsilon
    for eps in epsilons:
        acc, ex = test(model, device, test_loader, eps)
        accuracies.append(acc)
        examples.append(ex)

    return {"accuracies": accuracies, "examples": examples, "train_losses": train_losses}


if __name__ == "__main__":
    import pyad as torch
    run(torch)
