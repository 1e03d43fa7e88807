"""Port of the PyTorch tutorial "Knowledge Distillation Tutorial" (pytorch/tutorials
``beginner_source/knowledge_distillation_tutorial.py``): a teacher CNN (``DeepNN``) and a
student (``LightNN``) trained with cross-entropy, then students trained with the
teacher's softened outputs (``T``, the ``T**2``-scaled soft-target loss), with a
``CosineEmbeddingLoss`` on the hidden representations (the teacher's pooled by
``avg_pool1d``), and with a ``Conv2d`` regressor and ``MSELoss`` on the feature maps;
every model's test accuracy.

Ported by changing the imports (``import pyad as torch``). CIFAR-10 is replaced by
synthetic normalised 3x32x32 images and random labels (NumPy, from ``seed``), fed
through ``torch.utils.data.TensorDataset`` and the text's ``DataLoader`` calls with
``batch_size`` (128 in the text) and ``shuffle`` as keyword arguments (the tests give
both frameworks the same batches with ``shuffle=False``); torchvision is left out, and so
is the text's ``warnings.filterwarnings("ignore")`` (it would silence the whole
process). Every training runs ``epochs`` epochs (10 in the text). ``run`` returns each
epoch's printed average loss, the printed norms and parameter counts, and every test
accuracy; ``init`` sees each model as it is built (the tests load torch's initial
weights; the text's ``torch.manual_seed(42)`` before each student makes them equal in
each framework).

Run it with ``python examples/ported/knowledge_distillation_tutorial.py``.
"""
import numpy as np


def run(torch, n_train=32, n_test=16, batch_size=8, epochs=2, shuffle=True, seed=0,
        init=None, log=print):
    """Return ``{"losses", "norms", "params", "accuracies"}``."""
    nn = torch.nn
    optim = torch.optim
    r = {"losses": [], "norms": [], "params": [], "accuracies": {}}

    def built(model):
        if init is not None:
            init(model)
        return model

    # Check if GPU is available, and if not, use the CPU
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    # CIFAR-10 stand-in: normalised with the text's mean and std
    rng = np.random.RandomState(seed)
    mean = np.array([0.485, 0.456, 0.406], np.float32).reshape(3, 1, 1)
    std = np.array([0.229, 0.224, 0.225], np.float32).reshape(3, 1, 1)

    def cifar10(n):
        images = ((rng.rand(n, 3, 32, 32).astype(np.float32) - mean) / std)
        return torch.utils.data.TensorDataset(torch.from_numpy(images.astype(np.float32)),
                                              torch.from_numpy(rng.randint(0, 10, n)))

    train_dataset = cifar10(n_train)
    test_dataset = cifar10(n_test)

    #Dataloaders
    train_loader = torch.utils.data.DataLoader(train_dataset, batch_size=batch_size, shuffle=shuffle, num_workers=2)
    test_loader = torch.utils.data.DataLoader(test_dataset, batch_size=batch_size, shuffle=False, num_workers=2)

    # Deeper neural network class to be used as teacher
    class DeepNN(nn.Module):
        def __init__(self, num_classes=10):
            super(DeepNN, self).__init__()
            self.features = nn.Sequential(
                nn.Conv2d(3, 128, kernel_size=3, padding=1),
                nn.ReLU(),
                nn.Conv2d(128, 64, kernel_size=3, padding=1),
                nn.ReLU(),
                nn.MaxPool2d(kernel_size=2, stride=2),
                nn.Conv2d(64, 64, kernel_size=3, padding=1),
                nn.ReLU(),
                nn.Conv2d(64, 32, kernel_size=3, padding=1),
                nn.ReLU(),
                nn.MaxPool2d(kernel_size=2, stride=2),
            )
            self.classifier = nn.Sequential(
                nn.Linear(2048, 512),
                nn.ReLU(),
                nn.Dropout(0.1),
                nn.Linear(512, num_classes)
            )

        def forward(self, x):
            x = self.features(x)
            x = torch.flatten(x, 1)
            x = self.classifier(x)
            return x

    # Lightweight neural network class to be used as student
    class LightNN(nn.Module):
        def __init__(self, num_classes=10):
            super(LightNN, self).__init__()
            self.features = nn.Sequential(
                nn.Conv2d(3, 16, kernel_size=3, padding=1),
                nn.ReLU(),
                nn.MaxPool2d(kernel_size=2, stride=2),
                nn.Conv2d(16, 16, kernel_size=3, padding=1),
                nn.ReLU(),
                nn.MaxPool2d(kernel_size=2, stride=2),
            )
            self.classifier = nn.Sequential(
                nn.Linear(1024, 256),
                nn.ReLU(),
                nn.Dropout(0.1),
                nn.Linear(256, num_classes)
            )

        def forward(self, x):
            x = self.features(x)
            x = torch.flatten(x, 1)
            x = self.classifier(x)
            return x

    def train(model, train_loader, epochs, learning_rate, device):
        criterion = nn.CrossEntropyLoss()
        optimizer = optim.Adam(model.parameters(), lr=learning_rate)

        model.to(device)
        model.train()

        for epoch in range(epochs):
            running_loss = 0.0
            for inputs, labels in train_loader:
                # inputs: A collection of batch_size images
                # labels: A vector of dimensionality batch_size with integers denoting class of each image
                inputs, labels = inputs.to(device), labels.to(device)

                optimizer.zero_grad()
                outputs = model(inputs)

                # outputs: Output of the network for the collection of images. A vector of dimensionality batch_size
                # labels: The actual labels of the images. Vector of dimensionality batch_size
                loss = criterion(outputs, labels)
                loss.backward()
                optimizer.step()

                running_loss += loss.item()

            log(f"Epoch {epoch+1}/{epochs}, Loss: {running_loss / len(train_loader)}")
            r["losses"].append(running_loss / len(train_loader))

    def test(model, test_loader, device):
        model.to(device)
        model.eval()

        correct = 0
        total = 0

        with torch.no_grad():
            for inputs, labels in test_loader:
                inputs, labels = inputs.to(device), labels.to(device)

                outputs = model(inputs)
                _, predicted = torch.max(outputs.data, 1)

                total += labels.size(0)
                correct += (predicted == labels).sum().item()

        accuracy = 100 * correct / total
        log(f"Test Accuracy: {accuracy:.2f}%")
        return accuracy

    torch.manual_seed(42)
    nn_deep = built(DeepNN(num_classes=10))
    train(nn_deep, train_loader, epochs=epochs, learning_rate=0.001, device=device)
    test_accuracy_deep = test(nn_deep, test_loader, device)

    # Instantiate the lightweight network
    torch.manual_seed(42)
    nn_light = built(LightNN(num_classes=10))

    torch.manual_seed(42)
    new_nn_light = built(LightNN(num_classes=10))

    # Print the norm of the first layer of the initial lightweight model
    log("Norm of 1st layer of nn_light:", torch.norm(nn_light.features[0].weight).item())
    # Print the norm of the first layer of the new lightweight model
    log("Norm of 1st layer of new_nn_light:", torch.norm(new_nn_light.features[0].weight).item())
    r["norms"] += [torch.norm(nn_light.features[0].weight).item(),
                   torch.norm(new_nn_light.features[0].weight).item()]

    total_params_deep = "{:,}".format(sum(p.numel() for p in nn_deep.parameters()))
    log(f"DeepNN parameters: {total_params_deep}")
    total_params_light = "{:,}".format(sum(p.numel() for p in nn_light.parameters()))
    log(f"LightNN parameters: {total_params_light}")
    r["params"] += [total_params_deep, total_params_light]

    # Train and test the lightweight network with cross entropy loss
    train(nn_light, train_loader, epochs=epochs, learning_rate=0.001, device=device)
    test_accuracy_light_ce = test(nn_light, test_loader, device)

    log(f"Teacher accuracy: {test_accuracy_deep:.2f}%")
    log(f"Student accuracy: {test_accuracy_light_ce:.2f}%")

    def train_knowledge_distillation(teacher, student, train_loader, epochs, learning_rate, T, soft_target_loss_weight, ce_loss_weight, device):
        ce_loss = nn.CrossEntropyLoss()
        optimizer = optim.Adam(student.parameters(), lr=learning_rate)

        teacher.to(device)
        student.to(device)
        teacher.eval()  # Teacher set to evaluation mode
        student.train() # Student to train mode

        for epoch in range(epochs):
            running_loss = 0.0
            for inputs, labels in train_loader:
                inputs, labels = inputs.to(device), labels.to(device)

                optimizer.zero_grad()

                # Forward pass with the teacher model - do not save gradients here as we do not change the teacher's weights
                with torch.no_grad():
                    teacher_logits = teacher(inputs)

                # Forward pass with the student model
                student_logits = student(inputs)

                #Soften the student logits by applying softmax first and log() second
                soft_targets = nn.functional.softmax(teacher_logits / T, dim=-1)
                soft_prob = nn.functional.log_softmax(student_logits / T, dim=-1)

                # Calculate the soft targets loss. Scaled by T**2 as suggested by the authors of the paper "Distilling the knowledge in a neural network"
                soft_targets_loss = -torch.sum(soft_targets * soft_prob) / soft_prob.size()[0] * (T**2)

                # Calculate the true label loss
                label_loss = ce_loss(student_logits, labels)

                # Weighted sum of the two losses
                loss = soft_target_loss_weight * soft_targets_loss + ce_loss_weight * label_loss

                loss.backward()
                optimizer.step()

                running_loss += loss.item()

            log(f"Epoch {epoch+1}/{epochs}, Loss: {running_loss / len(train_loader)}")
            r["losses"].append(running_loss / len(train_loader))

    # Apply train_knowledge_distillation with a temperature of 2. Arbitrarily set the weights to 0.75 for CE and 0.25 for distillation loss.
    train_knowledge_distillation(teacher=nn_deep, student=new_nn_light, train_loader=train_loader, epochs=epochs, learning_rate=0.001, T=2, soft_target_loss_weight=0.25, ce_loss_weight=0.75, device=device)
    test_accuracy_light_ce_and_kd = test(new_nn_light, test_loader, device)

    # Compare the student test accuracy with and without the teacher, after distillation
    log(f"Teacher accuracy: {test_accuracy_deep:.2f}%")
    log(f"Student accuracy without teacher: {test_accuracy_light_ce:.2f}%")
    log(f"Student accuracy with CE + KD: {test_accuracy_light_ce_and_kd:.2f}%")

    class ModifiedDeepNNCosine(nn.Module):
        def __init__(self, num_classes=10):
            super(ModifiedDeepNNCosine, self).__init__()
            self.features = nn.Sequential(
                nn.Conv2d(3, 128, kernel_size=3, padding=1),
                nn.ReLU(),
                nn.Conv2d(128, 64, kernel_size=3, padding=1),
                nn.ReLU(),
                nn.MaxPool2d(kernel_size=2, stride=2),
                nn.Conv2d(64, 64, kernel_size=3, padding=1),
                nn.ReLU(),
                nn.Conv2d(64, 32, kernel_size=3, padding=1),
                nn.ReLU(),
                nn.MaxPool2d(kernel_size=2, stride=2),
            )
            self.classifier = nn.Sequential(
                nn.Linear(2048, 512),
                nn.ReLU(),
                nn.Dropout(0.1),
                nn.Linear(512, num_classes)
            )

        def forward(self, x):
            x = self.features(x)
            flattened_conv_output = torch.flatten(x, 1)
            x = self.classifier(flattened_conv_output)
            flattened_conv_output_after_pooling = torch.nn.functional.avg_pool1d(flattened_conv_output, 2)
            return x, flattened_conv_output_after_pooling

    # Create a similar student class where we return a tuple. We do not apply pooling after flattening.
    class ModifiedLightNNCosine(nn.Module):
        def __init__(self, num_classes=10):
            super(ModifiedLightNNCosine, self).__init__()
            self.features = nn.Sequential(
                nn.Conv2d(3, 16, kernel_size=3, padding=1),
                nn.ReLU(),
                nn.MaxPool2d(kernel_size=2, stride=2),
                nn.Conv2d(16, 16, kernel_size=3, padding=1),
                nn.ReLU(),
                nn.MaxPool2d(kernel_size=2, stride=2),
            )
            self.classifier = nn.Sequential(
                nn.Linear(1024, 256),
                nn.ReLU(),
                nn.Dropout(0.1),
                nn.Linear(256, num_classes)
            )

        def forward(self, x):
            x = self.features(x)
            flattened_conv_output = torch.flatten(x, 1)
            x = self.classifier(flattened_conv_output)
            return x, flattened_conv_output

    # We do not have to train the modified deep network from scratch of course, we just load its weights from the trained instance
    modified_nn_deep = built(ModifiedDeepNNCosine(num_classes=10))
    modified_nn_deep.load_state_dict(nn_deep.state_dict())

    # Once again ensure the norm of the first layer is the same for both networks
    log("Norm of 1st layer for deep_nn:", torch.norm(nn_deep.features[0].weight).item())
    log("Norm of 1st layer for modified_deep_nn:", torch.norm(modified_nn_deep.features[0].weight).item())
    r["norms"] += [torch.norm(nn_deep.features[0].weight).item(),
                   torch.norm(modified_nn_deep.features[0].weight).item()]

    # Initialize a modified lightweight network with the same seed as our other lightweight instances. This will be trained from scratch to examine the effectiveness of cosine loss minimization.
    torch.manual_seed(42)
    modified_light_nn = built(ModifiedLightNNCosine(num_classes=10))
    log("Norm of 1st layer:", torch.norm(modified_light_nn.features[0].weight).item())
    r["norms"].append(torch.norm(modified_light_nn.features[0].weight).item())

    def train_cosine_loss(teacher, student, train_loader, epochs, learning_rate, hidden_rep_loss_weight, ce_loss_weight, device):
        ce_loss = nn.CrossEntropyLoss()
        cosine_loss = nn.CosineEmbeddingLoss()
        optimizer = optim.Adam(student.parameters(), lr=learning_rate)

        teacher.to(device)
        student.to(device)
        teacher.eval()  # Teacher set to evaluation mode
        student.train() # Student to train mode

        for epoch in range(epochs):
            running_loss = 0.0
            for inputs, labels in train_loader:
                inputs, labels = inputs.to(device), labels.to(device)

                optimizer.zero_grad()

                # Forward pass with the teacher model and keep only the hidden representation
                with torch.no_grad():
                    _, teacher_hidden_representation = teacher(inputs)

                # Forward pass with the student model
                student_logits, student_hidden_representation = student(inputs)

                # Calculate the cosine loss. Target is a vector of ones. From the loss formula above we can see that is the case where loss minimization leads to cosine similarity increase.
                hidden_rep_loss = cosine_loss(student_hidden_representation, teacher_hidden_representation, target=torch.ones(inputs.size(0)).to(device))

                # Calculate the true label loss
                label_loss = ce_loss(student_logits, labels)

                # Weighted sum of the two losses
                loss = hidden_rep_loss_weight * hidden_rep_loss + ce_loss_weight * label_loss

                loss.backward()
                optimizer.step()

                running_loss += loss.item()

            log(f"Epoch {epoch+1}/{epochs}, Loss: {running_loss / len(train_loader)}")
            r["losses"].append(running_loss / len(train_loader))

    def test_multiple_outputs(model, test_loader, device):
        model.to(device)
        model.eval()

        correct = 0
        total = 0

        with torch.no_grad():
            for inputs, labels in test_loader:
                inputs, labels = inputs.to(device), labels.to(device)

                outputs, _ = model(inputs) # In this line we disregard the second tensor of the tuple
                _, predicted = torch.max(outputs.data, 1)

                total += labels.size(0)
                correct += (predicted == labels).sum().item()

        accuracy = 100 * correct / total
        log(f"Test Accuracy: {accuracy:.2f}%")
        return accuracy

    #Train and test the lightweight network with cross entropy loss
    train_cosine_loss(teacher=modified_nn_deep, student=modified_light_nn, train_loader=train_loader, epochs=epochs, learning_rate=0.001, hidden_rep_loss_weight=0.25, ce_loss_weight=0.75, device=device)
    test_accuracy_light_ce_and_cosine_loss = test_multiple_outputs(modified_light_nn, test_loader, device)

    class ModifiedDeepNNRegressor(nn.Module):
        def __init__(self, num_classes=10):
            super(ModifiedDeepNNRegressor, self).__init__()
            self.features = nn.Sequential(
                nn.Conv2d(3, 128, kernel_size=3, padding=1),
                nn.ReLU(),
                nn.Conv2d(128, 64, kernel_size=3, padding=1),
                nn.ReLU(),
                nn.MaxPool2d(kernel_size=2, stride=2),
                nn.Conv2d(64, 64, kernel_size=3, padding=1),
                nn.ReLU(),
                nn.Conv2d(64, 32, kernel_size=3, padding=1),
                nn.ReLU(),
                nn.MaxPool2d(kernel_size=2, stride=2),
            )
            self.classifier = nn.Sequential(
                nn.Linear(2048, 512),
                nn.ReLU(),
                nn.Dropout(0.1),
                nn.Linear(512, num_classes)
            )

        def forward(self, x):
            x = self.features(x)
            conv_feature_map = x
            x = torch.flatten(x, 1)
            x = self.classifier(x)
            return x, conv_feature_map

    class ModifiedLightNNRegressor(nn.Module):
        def __init__(self, num_classes=10):
            super(ModifiedLightNNRegressor, self).__init__()
            self.features = nn.Sequential(
                nn.Conv2d(3, 16, kernel_size=3, padding=1),
                nn.ReLU(),
                nn.MaxPool2d(kernel_size=2, stride=2),
                nn.Conv2d(16, 16, kernel_size=3, padding=1),
                nn.ReLU(),
                nn.MaxPool2d(kernel_size=2, stride=2),
            )
            # Include an extra regressor (in our case linear)
            self.regressor = nn.Sequential(
                nn.Conv2d(16, 32, kernel_size=3, padding=1)
            )
            self.classifier = nn.Sequential(
                nn.Linear(1024, 256),
                nn.ReLU(),
                nn.Dropout(0.1),
                nn.Linear(256, num_classes)
            )

        def forward(self, x):
            x = self.features(x)
            regressor_output = self.regressor(x)
            x = torch.flatten(x, 1)
            x = self.classifier(x)
            return x, regressor_output

    def train_mse_loss(teacher, student, train_loader, epochs, learning_rate, feature_map_weight, ce_loss_weight, device):
        ce_loss = nn.CrossEntropyLoss()
        mse_loss = nn.MSELoss()
        optimizer = optim.Adam(student.parameters(), lr=learning_rate)

        teacher.to(device)
        student.to(device)
        teacher.eval()  # Teacher set to evaluation mode
        student.train() # Student to train mode

        for epoch in range(epochs):
            running_loss = 0.0
            for inputs, labels in train_loader:
                inputs, labels = inputs.to(device), labels.to(device)

                optimizer.zero_grad()

                # Again ignore teacher logits
                with torch.no_grad():
                    _, teacher_feature_map = teacher(inputs)

                # Forward pass with the student model
                student_logits, regressor_feature_map = student(inputs)

                # Calculate the loss
                hidden_rep_loss = mse_loss(regressor_feature_map, teacher_feature_map)

                # Calculate the true label loss
                label_loss = ce_loss(student_logits, labels)

                # Weighted sum of the two losses
                loss = feature_map_weight * hidden_rep_loss + ce_loss_weight * label_loss

                loss.backward()
                optimizer.step()

                running_loss += loss.item()

            log(f"Epoch {epoch+1}/{epochs}, Loss: {running_loss / len(train_loader)}")
            r["losses"].append(running_loss / len(train_loader))

    # Initialize a ModifiedLightNNRegressor
    torch.manual_seed(42)
    modified_light_nn_mse = built(ModifiedLightNNRegressor(num_classes=10))

    # We do not have to train the modified deep network from scratch of course, we just load its weights from the trained instance
    modified_nn_deep_reg = built(ModifiedDeepNNRegressor(num_classes=10))
    modified_nn_deep_reg.load_state_dict(nn_deep.state_dict())

    # Train and test once again
    train_mse_loss(teacher=modified_nn_deep_reg, student=modified_light_nn_mse, train_loader=train_loader, epochs=epochs, learning_rate=0.001, feature_map_weight=0.25, ce_loss_weight=0.75, device=device)
    test_accuracy_light_ce_and_mse_loss = test_multiple_outputs(modified_light_nn_mse, test_loader, device)

    log(f"Teacher accuracy: {test_accuracy_deep:.2f}%")
    log(f"Student accuracy without teacher: {test_accuracy_light_ce:.2f}%")
    log(f"Student accuracy with CE + KD: {test_accuracy_light_ce_and_kd:.2f}%")
    log(f"Student accuracy with CE + CosineLoss: {test_accuracy_light_ce_and_cosine_loss:.2f}%")
    log(f"Student accuracy with CE + RegressorMSE: {test_accuracy_light_ce_and_mse_loss:.2f}%")
    r["accuracies"] = {"deep": test_accuracy_deep, "light_ce": test_accuracy_light_ce,
                       "light_ce_and_kd": test_accuracy_light_ce_and_kd,
                       "light_ce_and_cosine_loss": test_accuracy_light_ce_and_cosine_loss,
                       "light_ce_and_mse_loss": test_accuracy_light_ce_and_mse_loss}
    r["models"] = [nn_deep, nn_light, new_nn_light, modified_light_nn, modified_light_nn_mse]
    return r


if __name__ == "__main__":
    import pyad as torch
    run(torch)
