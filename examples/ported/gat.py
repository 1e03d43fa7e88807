"""Port of pytorch/examples ``gat``: a two-layer graph attention network
(``GraphAttentionLayer`` with ``nn.Parameter(torch.empty(size=...))`` and
``init.xavier_normal_`` of a 3-D attention tensor, heads split by ``view``/``permute``,
scores by batched ``matmul`` and ``.mT``, non-edges masked by ``torch.where`` against
``-9e16 * torch.ones_like(e)``, ``F.softmax``, ``F.dropout(..., training=self.training)``,
heads concatenated with ``permute(...).contiguous().view`` or averaged), ``F.elu``,
``log_softmax``, ``NLLLoss`` on index masks and Adam with weight decay.

Ported by changing the imports (``import pyad as torch``). Cora is replaced by the same
seeded synthetic graph as ``gcn.py`` (dense, as the original's ``load_cora`` returns it),
and the split comes from a seeded NumPy permutation instead of ``torch.randperm``.

Run it with ``python examples/ported/gat.py``.
"""
import numpy as np

try:
    from gcn import synthetic_cora
except ImportError:                          # loaded by path (the tests)
    import importlib.util
    import os
    _spec = importlib.util.spec_from_file_location(
        "_ported_gcn", os.path.join(os.path.dirname(os.path.abspath(__file__)), "gcn.py"))
    _gcn = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(_gcn)
    synthetic_cora = _gcn.synthetic_cora


def run(torch, epochs=6, hidden_dim=16, num_heads=4, concat_heads=False, lr=0.005, l2=5e-4,
        dropout_p=0.6, seed=13, init=None, log=print):
    """Train for ``epochs`` full-batch steps; return the training loss and the train and
    validation losses and accuracies of ``test`` of each, then the test loss."""
    nn, F = torch.nn, torch.nn.functional
    Adam = torch.optim.Adam
    torch.manual_seed(seed)

    class GraphAttentionLayer(nn.Module):
        def __init__(self, in_features: int, out_features: int, n_heads: int, concat: bool = False, dropout: float = 0.4, leaky_relu_slope: float = 0.2):
            super(GraphAttentionLayer, self).__init__()

            self.n_heads = n_heads  # Number of attention heads
            self.concat = concat  # wether to concatenate the final attention heads
            self.dropout = dropout  # Dropout rate

            if concat:  # concatenating the attention heads
                self.out_features = out_features  # Number of output features per node
                assert out_features % n_heads == 0  # Ensure that out_features is a multiple of n_heads
                self.n_hidden = out_features // n_heads
            else:  # averaging output over the attention heads (Used in the main paper)
                self.n_hidden = out_features

            #  A shared linear transformation, parametrized by a weight matrix W is applied to every node
            #  Initialize the weight matrix W
            self.W = nn.Parameter(torch.empty(size=(in_features, self.n_hidden * n_heads)))

            # Initialize the attention weights a
            self.a = nn.Parameter(torch.empty(size=(n_heads, 2 * self.n_hidden, 1)))

            self.leakyrelu = nn.LeakyReLU(leaky_relu_slope)  # LeakyReLU activation function
            self.softmax = nn.Softmax(dim=1)  # softmax activation function to the attention coefficients

            self.reset_parameters()  # Reset the parameters

        def reset_parameters(self):
            nn.init.xavier_normal_(self.W)
            nn.init.xavier_normal_(self.a)

        def _get_attention_scores(self, h_transformed: torch.Tensor):
            source_scores = torch.matmul(h_transformed, self.a[:, :self.n_hidden, :])
            target_scores = torch.matmul(h_transformed, self.a[:, self.n_hidden:, :])

            # broadcast add
            # (n_heads, n_nodes, 1) + (n_heads, 1, n_nodes) = (n_heads, n_nodes, n_nodes)
            e = source_scores + target_scores.mT
            return self.leakyrelu(e)

        def forward(self, h: torch.Tensor, adj_mat: torch.Tensor):
            n_nodes = h.shape[0]

            # Apply linear transformation to node feature -> W h
            # output shape (n_nodes, n_hidden * n_heads)
            h_transformed = torch.mm(h, self.W)
            h_transformed = F.dropout(h_transformed, self.dropout, training=self.training)

            # splitting the heads by reshaping the tensor and putting heads dim first
            # output shape (n_heads, n_nodes, n_hidden)
            h_transformed = h_transformed.view(n_nodes, self.n_heads, self.n_hidden).permute(1, 0, 2)

            # getting the attention scores
            # output shape (n_heads, n_nodes, n_nodes)
            e = self._get_attention_scores(h_transformed)

            # Set the attention score for non-existent edges to -9e15 (MASKING NON-EXISTENT EDGES)
            connectivity_mask = -9e16 * torch.ones_like(e)
            e = torch.where(adj_mat > 0, e, connectivity_mask)  # masked attention scores

            # attention coefficients are computed as a softmax over the rows
            # for each column j in the attention score matrix e
            attention = F.softmax(e, dim=-1)
            attention = F.dropout(attention, self.dropout, training=self.training)

            # final node embeddings are computed as a weighted average of the features of its neighbors
            h_prime = torch.matmul(attention, h_transformed)

            # concatenating/averaging the attention heads
            # output shape (n_nodes, out_features)
            if self.concat:
                h_prime = h_prime.permute(1, 0, 2).contiguous().view(n_nodes, self.out_features)
            else:
                h_prime = h_prime.mean(dim=0)

            return h_prime

    class GAT(nn.Module):
        def __init__(self,
                     in_features,
                     n_hidden,
                     n_heads,
                     num_classes,
                     concat=False,
                     dropout=0.4,
                     leaky_relu_slope=0.2):
            super(GAT, self).__init__()

            # Define the Graph Attention layers
            self.gat1 = GraphAttentionLayer(
                in_features=in_features, out_features=n_hidden, n_heads=n_heads,
                concat=concat, dropout=dropout, leaky_relu_slope=leaky_relu_slope
            )

            self.gat2 = GraphAttentionLayer(
                in_features=n_hidden, out_features=num_classes, n_heads=1,
                concat=False, dropout=dropout, leaky_relu_slope=leaky_relu_slope
            )

        def forward(self, input_tensor: torch.Tensor, adj_mat: torch.Tensor):
            # Apply the first Graph Attention layer
            x = self.gat1(input_tensor, adj_mat)
            x = F.elu(x)  # Apply ELU activation function to the output of the first layer

            # Apply the second Graph Attention layer
            x = self.gat2(x, adj_mat)

            return F.log_softmax(x, dim=1)  # Apply log softmax activation function

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
        # (the original: torch.sparse_coo_tensor(edges.T, torch.ones(E), (V, V), dtype=torch.int64))
        adj_mat = torch.zeros(V, V, dtype=torch.int64)
        adj_mat[torch.from_numpy(cites[:, 0]).long(), torch.from_numpy(cites[:, 1]).long()] = 1
        adj_mat = torch.eye(V) + adj_mat  # Add self-loops to the adjacency matrix
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

    gat_net = GAT(
        in_features=features.shape[1],          # Number of input features per node
        n_hidden=hidden_dim,                    # Output size of the first Graph Attention Layer
        n_heads=num_heads,                      # Number of attention heads in the first Graph Attention Layer
        num_classes=labels.max().item() + 1,    # Number of classes to predict for each node
        concat=concat_heads,                    # Wether to concatinate attention heads
        dropout=dropout_p,                      # Dropout rate
        leaky_relu_slope=0.2                    # Alpha (slope) of the leaky relu activation
    )
    if init is not None:
        init(gat_net)

    optimizer = Adam(gat_net.parameters(), lr=lr, weight_decay=l2)
    criterion = nn.NLLLoss()

    losses = []
    for epoch in range(epochs):
        losses += train_iter(epoch + 1, gat_net, optimizer, criterion, (features, adj_mat), labels,
                             idx_train, idx_val)
    loss_test, acc_test = test(gat_net, criterion, (features, adj_mat), labels, idx_test)
    log(f'Test set results: loss {loss_test:.4f} accuracy {acc_test:.4f}')
    return losses + [loss_test, acc_test]


if __name__ == "__main__":
    import pyad
    run(pyad, epochs=20)
