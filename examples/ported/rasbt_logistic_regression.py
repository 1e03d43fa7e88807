"""Port of rasbt/deeplearning-models ``pytorch_ipynb/basic-ml/logistic-regression.ipynb``:
the "low-level implementation with manual gradients" (``LogisticRegression1``: zero
weights, a hand-written sigmoid, gradient and in-place weight updates, the logistic
cost by ``torch.mm``) on the two-feature, two-class toy data, then its test accuracy.

deeplearning-models is MIT-licensed, Copyright (c) 2019 Sebastian Raschka.

Ported by changing the imports (``import pyad as torch``). The Iris download
(``np.lib.DataSource``) is 100 synthetic rows of two Gaussian clusters of two features
(50 of each class, as the text's first two Iris classes); the text's shuffle
(``np.random.seed(1)``), split and standardisation run as written; the scatter plots are
dropped; ``print`` is ``log``. The stored revision's ``custom_where(probas >= .5, 1,
0)`` computes ``1 - cond`` of a bool tensor, which torch 1.0 (uint8) allowed and torch 2
rejects ("Subtraction ... with a bool tensor is not supported"): it is written
``custom_where((probas >= .5).float(), 1, 0)``, as the notebook's later
``LogisticRegression2`` cell does. The ``%watermark`` cells are dropped. Each epoch's
training accuracy and cost, the final weights and bias and the test accuracy are
returned.

Run it with ``python examples/ported/rasbt_logistic_regression.py``.
"""
import numpy as np


def run(torch, num_epochs=10, seed=0, init=None, log=print):
    rng = np.random.RandomState(seed)
    results = []

    ##########################
    ### DATASET
    ##########################

    x = np.concatenate([rng.normal((5.0, 3.4), 0.4, (50, 2)),
                        rng.normal((5.9, 2.8), 0.5, (50, 2))])
    y = np.zeros(100)
    y[50:] = 1

    np.random.seed(1)
    idx = np.arange(y.shape[0])
    np.random.shuffle(idx)
    X_test, y_test = x[idx[:25]], y[idx[:25]]
    X_train, y_train = x[idx[25:]], y[idx[25:]]
    mu, std = np.mean(X_train, axis=0), np.std(X_train, axis=0)
    X_train, X_test = (X_train - mu) / std, (X_test - mu) / std

    ## Low-level implementation with manual gradients

    device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")


    def custom_where(cond, x_1, x_2):
        return (cond * x_1) + ((1-cond) * x_2)


    class LogisticRegression1():
        def __init__(self, num_features):
            self.num_features = num_features
            self.weights = torch.zeros(num_features, 1,
                                       dtype=torch.float32, device=device)
            self.bias = torch.zeros(1, dtype=torch.float32, device=device)

        def forward(self, x):
            linear = torch.add(torch.mm(x, self.weights), self.bias)
            probas = self._sigmoid(linear)
            return probas

        def backward(self, probas, y):
            errors = y - probas.view(-1)
            return errors

        def predict_labels(self, x):
            probas = self.forward(x)
            labels = custom_where((probas >= .5).float(), 1, 0)
            return labels

        def evaluate(self, x, y):
            labels = self.predict_labels(x).float()
            accuracy = torch.sum(labels.view(-1) == y) / y.size()[0]
            return accuracy

        def _sigmoid(self, z):
            return 1. / (1. + torch.exp(-z))

        def _logit_cost(self, y, proba):
            tmp1 = torch.mm(-y.view(1, -1), torch.log(proba))
            tmp2 = torch.mm((1 - y).view(1, -1), torch.log(1 - proba))
            return tmp1 - tmp2

        def train(self, x, y, num_epochs, learning_rate=0.01):
            for e in range(num_epochs):

                #### Compute outputs ####
                probas = self.forward(x)

                #### Compute gradients ####
                errors = self.backward(probas, y)
                neg_grad = torch.mm(x.transpose(0, 1), errors.view(-1, 1))

                #### Update weights ####
                self.weights += learning_rate * neg_grad
                self.bias += learning_rate * torch.sum(errors)

                #### Logging ####
                accuracy = self.evaluate(x, y)
                cost = self._logit_cost(y, self.forward(x))
                results.extend([float(accuracy), float(cost)])
                log('Epoch: %03d' % (e+1), end="")
                log(' | Train ACC: %.3f' % accuracy, end="")
                log(' | Cost: %.3f' % cost)


    X_train_tensor = torch.tensor(X_train, dtype=torch.float32, device=device)
    y_train_tensor = torch.tensor(y_train, dtype=torch.float32, device=device)

    logr = LogisticRegression1(num_features=2)
    logr.train(X_train_tensor, y_train_tensor, num_epochs=num_epochs, learning_rate=0.1)

    log('\nModel parameters:')
    log('  Weights: %s' % logr.weights)
    log('  Bias: %s' % logr.bias)
    results.extend(logr.weights.numpy().ravel().tolist() + logr.bias.numpy().tolist())

    #### Evaluating the Model

    X_test_tensor = torch.tensor(X_test, dtype=torch.float32, device=device)
    y_test_tensor = torch.tensor(y_test, dtype=torch.float32, device=device)

    test_acc = logr.evaluate(X_test_tensor, y_test_tensor)
    log('Test set accuracy: %.2f%%' % (test_acc*100))
    results.append(float(test_acc))
    return results


if __name__ == "__main__":
    import pyad as torch
    run(torch)
