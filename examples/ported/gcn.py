"""Port of pytorch/examples ``gcn``: a two-layer graph convolutional network
(``GraphConv`` with an ``nn.Parameter`` kernel from ``torch.Tensor(n, m)`` and
``init.xavier_normal_``, ``torch.mm`` and ``torch.spmm``, dropout, ``log_softmax``), the
Cora preprocessing (row-normalised features through ``torch.diag`` of the reciprocal
row sums, ``inf`` entries zeroed by boolean-mask assignment, the renormalised adjacency
``D^-1/2 (I + A) D^-1/2``), ``NLLLoss`` on index masks from ``torch.randperm`` and Adam
with weight decay, the per-epoch ``test`` under ``torch.no_grad()``.

Ported by changing the imports (``import pyad as torch``). Cora is replaced by a seeded
synthetic graph of the same form (0/1 bag-of-words features, some rows empty, a list of
citations). The original builds sparse COO matrices (``torch.sparse_coo_tensor``,
``.to_sparse()``); pyad has no sparse layout, so the matrices stay dense here and the
adjacency is assembled with ``index_put_`` (``torch.spmm`` of dense matrices is the
matrix product in both). The split comes from a seeded NumPy permutation instead of
``torch.randperm`` (the frameworks' generators differ), and ``run`` returns the test's
accuracies as well as its losses.

Run it with ``python examples/ported/gcn.py`` (which passes pyad with ``Tensor``
replaced by ``empty``: see the README).
"""
import numpy as np


def synthetic_cora(n_nodes=40, n_features=24, n_classes=4, n_edges=70, seed=0):
    rng = np.random.RandomState(seed)
    labels = rng.randint(0, n_classes, n_nodes)
    centres = rng.rand(n_classes, n_features) < 0.3
    features = (rng.rand(n_nodes, n_features) < 0.15) | (centres[labels] &
                                                         (rng.rand(n_nodes, n_features) < 0.6))
    features[::9] = False                              # nodes without words
    edges = rng.randint(0, n_nodes, (n_edges, 2))
    edges = edges[edges[:, 0] != edges[:, 1]]
    return features.astype(np.int32), labels, edges.astype(np.int32)


def run(torch, epochs=8, hidden_dim=16, lr=0.01, l2=5e-4, dropout_p=0.5, include_bias=True,
        seed=42, init=None, log=print):
    """Train for ``epochs`` full-batch steps; return the training loss and the train and
    validation losses of ``test`` of each."""
    nn, F = torch.nn, torch.nn.functional
    Adam = torch.optim.Adam
    torch.manual_seed(seed)

    class GraphConv(nn.Module):
        def __init__(self, input_dim, output_dim, use_bias=False):
            super(GraphConv, self).__init__()

            # Initialize the weight matrix W (in this case called `kernel`)
            self.kernel = nn.Parameter(torch.Tensor(input_dim, output_dim))
            nn.init.xavier_normal_(self.kernel)  # Initialize the weights using Xavier initialization

            # Initialize the bias (if use_bias is True)
            self.bias = None
            if use_bias:
                self.bias = nn.Parameter(torch.Tensor(output_dim))
                nn.init.zeros_(self.bias)  # Initialize the bias to zeros

        def forward(self, input_tensor, adj_mat):
            support = torch.mm(input_tensor, self.kernel)  # Matrix multiplication between input and weight matrix
            output = torch.spmm(adj_mat, support)  # Sparse matrix multiplication between adjacency matrix and support
            # Add the bias (if bias is not None)
            if self.bias is not None:
                output = output + self.bias

            return output

    class GCN(nn.Module):
        def __init__(self, input_dim, hidden_dim, output_dim, use_bias=True, dropout_p=0.1):
            super(GCN, self).__init__()

            # Define the Graph Convolution layers
            self.gc1 = GraphConv(input_dim, hidden_dim, use_bias=use_bias)
            self.gc2 = GraphConv(hidden_dim, output_dim, use_bias=use_bias)

            # Define the dropout layer
            self.dropout = nn.Dropout(dropout_p)

        def forward(self, input_tensor, adj_mat):
            # Perform the first graph convolutional layer
            x = self.gc1(input_tensor, adj_mat)
            x = F.relu(x)  # Apply ReLU activation function
            x = self.dropout(x)  # Apply dropout regularization

            # Perform the second graph convolutional layer
            x = self.gc2(x, adj_mat)

            # Apply log-softmax activation function for classification
            return F.log_softmax(x, dim=1)

    def load_cora():
        content, class_ids, cites = synthetic_cora()

        # Process features
        features = torch.FloatTensor(content)  # Extract feature values
        scale_vector = torch.sum(features, dim=1)  # Compute sum of features for each node
        scale_vector = 1 / scale_vector  # Compute reciprocal of the sums
        scale_vector[scale_vector == float('inf')] = 0  # Handle division by zero cases
        scale_vector = torch.diag(scale_vector)  # (the original: .to_sparse())
        features = scale_vector @ features  # Scale the features using the scale vector

        # Process labels
        labels = torch.LongTensor(class_ids)  # Convert labels to a tensor

        V = len(class_ids)  # Number of nodes
        E = cites.shape[0]  # Number of edges
        # (the original: torch.sparse_coo_tensor(edges.T, torch.ones(E), (V, V), dtype=torch.int64))
        adj_mat = torch.zeros(V, V, dtype=torch.int64)
        adj_mat.index_put_((torch.from_numpy(cites[:, 0]).long(),
                            torch.from_numpy(cites[:, 1]).long()),
                           torch.ones(E, dtype=torch.int64), accumulate=True)
        adj_mat = torch.eye(V) + adj_mat  # Add self-loops to the adjacency matrix

        degree_mat = torch.sum(adj_mat, dim=1)  # Compute the sum of each row in the adjacency matrix (degree matrix)
        degree_mat = torch.sqrt(1 / degree_mat)  # Compute the reciprocal square root of the degrees
        degree_mat[degree_mat == float('inf')] = 0  # Handle division by zero cases
        degree_mat = torch.diag(degree_mat)  # (the original: .to_sparse())

        adj_mat = degree_mat @ adj_mat @ degree_mat  # Apply the renormalization trick

        return features, labels, adj_mat

    def test(model, criterion, input, target, mask):
        model.eval()
        with torch.no_grad():
            output = model(*input)
            output, target = output[mask], target[mask]

            loss = criterion(output, target)
            acc = (output.argmax(dim=1) == target).float().sum() / len(target)
        return loss.item(), acc.item()

    def train_iter(epoch, model, optimizer, criterion, input, target, mask_train, mask_val):
        model.train()
        optimizer.zero_grad()

        # Forward pass
        output = model(*input)
        loss = criterion(output[mask_train], target[mask_train])  # Compute the loss using the training mask

        loss.backward()
        optimizer.step()

        # Evaluate the model performance on training and validation sets
        loss_train, acc_train = test(model, criterion, input, target, mask_train)
        loss_val, acc_val = test(model, criterion, input, target, mask_val)
        log(f'Epoch: {epoch:04d} loss_train: {loss_train:.4f} acc_train: {acc_train:.4f} '
            f'loss_val: {loss_val:.4f} acc_val: {acc_val:.4f}')
        return [loss.item(), loss_train, loss_val, acc_train, acc_val]

    features, labels, adj_mat = load_cora()
    idx = torch.from_numpy(np.random.RandomState(seed).permutation(len(labels)))
    idx_test, idx_val, idx_train = idx[:10], idx[10:18], idx[18:]

    gcn = GCN(features.shape[1], hidden_dim, labels.max().item() + 1, include_bias, dropout_p)
    if init is not None:
        init(gcn)
    optimizer = Adam(gcn.parameters(), lr=lr, weight_decay=l2)
    criterion = nn.NLLLoss()

    losses = []
    for epoch in range(epochs):
        losses += train_iter(epoch + 1, gcn, optimizer, criterion, (features, adj_mat), labels,
                             idx_train, idx_val)

    loss_test, acc_test = test(gcn, criterion, (features, adj_mat), labels, idx_test)
    log(f'Test set results: loss {loss_test:.4f} accuracy {acc_test:.4f}')
    return losses + [loss_test, acc_test]


if __name__ == "__main__":
    import types

    import pyad

    # pyad.Tensor is the Variable class: Tensor(n, m) is a shape as in torch, but one
    # int alone is a value (SPEC's Python scalar), so the bias's torch.Tensor(n) would
    # be a 0-d int: Tensor becomes empty here (the one gap of this script)
    namespace = types.SimpleNamespace(**{k: getattr(pyad, k) for k in dir(pyad)
                                         if not k.startswith("__")})
    namespace.Tensor = pyad.empty
    run(namespace, epochs=20)
