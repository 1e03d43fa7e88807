"""Port of karpathy/minGPT: ``mingpt/model.py`` (``NewGELU``, ``CausalSelfAttention``
with its ``tril`` buffer, ``Block`` with the ``ModuleDict`` MLP, ``GPT`` with
``get_default_config``, the ``model_type`` presets, ``_init_weights`` through ``apply``
and the scaled ``c_proj`` init, the whitelist/blacklist ``configure_optimizers`` over
``named_modules``, ``generate`` with ``do_sample``), ``mingpt/trainer.py`` (``Trainer``:
the ``DataLoader`` over ``RandomSampler(replacement=True, num_samples=int(1e10))``,
``clip_grad_norm_``, callbacks), ``mingpt/utils.py`` (``set_seed``, ``CfgNode``) and
``demo.ipynb``'s sorting task (``SortDataset``, the training run and ``eval_split``).

Copyright (c) Andrej Karpathy, under the MIT License (see
https://github.com/karpathy/minGPT/blob/master/LICENSE).

Ported by changing the imports (``import pyad as torch``). The package's modules are
the body of ``build``; the notebook's cells are the body of ``run``, whose keyword
arguments are its settings (fewer iterations); ``print`` is ``log``;
``from_pretrained`` (Hugging Face weights), ``CfgNode.merge_from_args`` and the BPE
tokenizer are left out.

Run it with ``python examples/ported/mingpt.py``.
"""
import math
import pickle
import random
import time
import types
from collections import defaultdict

import numpy as np


def build(torch, log=print):
    """minGPT's modules for the namespace ``torch``."""
    nn = torch.nn
    F = torch.nn.functional
    Dataset = torch.utils.data.Dataset
    DataLoader = torch.utils.data.DataLoader

    # -- mingpt/utils.py ------------------------------------------------------------------

    def set_seed(seed):
        random.seed(seed)
        np.random.seed(seed)
        torch.manual_seed(seed)
        torch.cuda.manual_seed_all(seed)

    class CfgNode:
        """ a lightweight configuration class inspired by yacs """
        # TODO: convert to subclass from a dict like in yacs?
        # TODO: implement freezing to prevent shooting of own foot
        # TODO: additional existence/override checks when reading/writing params?

        def __init__(self, **kwargs):
            self.__dict__.update(kwargs)

        def __str__(self):
            return self._str_helper(0)

        def _str_helper(self, indent):
            """ need to have a helper to support nested indentation for pretty printing """
            parts = []
            for k, v in self.__dict__.items():
                if isinstance(v, CfgNode):
                    parts.append("%s:\n" % k)
                    parts.append(v._str_helper(indent + 1))
                else:
                    parts.append("%s: %s\n" % (k, v))
            parts = [' ' * (indent * 4) + p for p in parts]
            return "".join(parts)

        def to_dict(self):
            """ return a dict representation of the config """
            return { k: v.to_dict() if isinstance(v, CfgNode) else v for k, v in self.__dict__.items() }

        def merge_from_dict(self, d):
            self.__dict__.update(d)

    CN = CfgNode

    # -- mingpt/model.py ------------------------------------------------------------------

    class NewGELU(nn.Module):
        """
        Implementation of the GELU activation function currently in Google BERT repo (identical to OpenAI GPT).
        Reference: Gaussian Error Linear Units (GELU) paper: https://arxiv.org/abs/1606.08415
        """
        def forward(self, x):
            return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))

    class CausalSelfAttention(nn.Module):
        """
        A vanilla multi-head masked self-attention layer with a projection at the end.
        It is possible to use torch.nn.MultiheadAttention here but I am including an
        explicit implementation here to show that there is nothing too scary here.
        """

        def __init__(self, config):
            super().__init__()
            assert config.n_embd % config.n_head == 0
            # key, query, value projections for all heads, but in a batch
            self.c_attn = nn.Linear(config.n_embd, 3 * config.n_embd)
            # output projection
            self.c_proj = nn.Linear(config.n_embd, config.n_embd)
            # regularization
            self.attn_dropout = nn.Dropout(config.attn_pdrop)
            self.resid_dropout = nn.Dropout(config.resid_pdrop)
            # causal mask to ensure that attention is only applied to the left in the input sequence
            self.register_buffer("bias", torch.tril(torch.ones(config.block_size, config.block_size))
                                         .view(1, 1, config.block_size, config.block_size))
            self.n_head = config.n_head
            self.n_embd = config.n_embd

        def forward(self, x):
            B, T, C = x.size() # batch size, sequence length, embedding dimensionality (n_embd)

            # calculate query, key, values for all heads in batch and move head forward to be the batch dim
            q, k ,v  = self.c_attn(x).split(self.n_embd, dim=2)
            k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2) # (B, nh, T, hs)
            q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2) # (B, nh, T, hs)
            v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2) # (B, nh, T, hs)

            # causal self-attention; Self-attend: (B, nh, T, hs) x (B, nh, hs, T) -> (B, nh, T, T)
            att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
            att = att.masked_fill(self.bias[:,:,:T,:T] == 0, float('-inf'))
            att = F.softmax(att, dim=-1)
            att = self.attn_dropout(att)
            y = att @ v # (B, nh, T, T) x (B, nh, T, hs) -> (B, nh, T, hs)
            y = y.transpose(1, 2).contiguous().view(B, T, C) # re-assemble all head outputs side by side

            # output projection
            y = self.resid_dropout(self.c_proj(y))
            return y

    class Block(nn.Module):
        """ an unassuming Transformer block """

        def __init__(self, config):
            super().__init__()
            self.ln_1 = nn.LayerNorm(config.n_embd)
            self.attn = CausalSelfAttention(config)
            self.ln_2 = nn.LayerNorm(config.n_embd)
            self.mlp = nn.ModuleDict(dict(
                c_fc    = nn.Linear(config.n_embd, 4 * config.n_embd),
                c_proj  = nn.Linear(4 * config.n_embd, config.n_embd),
                act     = NewGELU(),
                dropout = nn.Dropout(config.resid_pdrop),
            ))
            m = self.mlp
            self.mlpf = lambda x: m.dropout(m.c_proj(m.act(m.c_fc(x)))) # MLP forward

        def forward(self, x):
            x = x + self.attn(self.ln_1(x))
            x = x + self.mlpf(self.ln_2(x))
            return x

    class GPT(nn.Module):
        """ GPT Language Model """

        @staticmethod
        def get_default_config():
            C = CN()
            # either model_type or (n_layer, n_head, n_embd) must be given in the config
            C.model_type = 'gpt'
            C.n_layer = None
            C.n_head = None
            C.n_embd =  None
            # these options must be filled in externally
            C.vocab_size = None
            C.block_size = None
            # dropout hyperparameters
            C.embd_pdrop = 0.1
            C.resid_pdrop = 0.1
            C.attn_pdrop = 0.1
            return C

        def __init__(self, config):
            super().__init__()
            assert config.vocab_size is not None
            assert config.block_size is not None
            self.block_size = config.block_size

            type_given = config.model_type is not None
            params_given = all([config.n_layer is not None, config.n_head is not None, config.n_embd is not None])
            assert type_given ^ params_given # exactly one of these (XOR)
            if type_given:
                # translate from model_type to detailed configuration
                config.merge_from_dict({
                    # names follow the huggingface naming conventions
                    # GPT-1
                    'openai-gpt':   dict(n_layer=12, n_head=12, n_embd=768),  # 117M params
                    # GPT-2 configs
                    'gpt2':         dict(n_layer=12, n_head=12, n_embd=768),  # 124M params
                    'gpt2-medium':  dict(n_layer=24, n_head=16, n_embd=1024), # 350M params
                    'gpt2-large':   dict(n_layer=36, n_head=20, n_embd=1280), # 774M params
                    'gpt2-xl':      dict(n_layer=48, n_head=25, n_embd=1600), # 1558M params
                    # Gophers
                    'gopher-44m':   dict(n_layer=8, n_head=16, n_embd=512),
                    # (there are a number more...)
                    # I made these tiny models up
                    'gpt-mini':     dict(n_layer=6, n_head=6, n_embd=192),
                    'gpt-micro':    dict(n_layer=4, n_head=4, n_embd=128),
                    'gpt-nano':     dict(n_layer=3, n_head=3, n_embd=48),
                }[config.model_type])

            self.transformer = nn.ModuleDict(dict(
                wte = nn.Embedding(config.vocab_size, config.n_embd),
                wpe = nn.Embedding(config.block_size, config.n_embd),
                drop = nn.Dropout(config.embd_pdrop),
                h = nn.ModuleList([Block(config) for _ in range(config.n_layer)]),
                ln_f = nn.LayerNorm(config.n_embd),
            ))
            self.lm_head = nn.Linear(config.n_embd, config.vocab_size, bias=False)

            # init all weights, and apply a special scaled init to the residual projections, per GPT-2 paper
            self.apply(self._init_weights)
            for pn, p in self.named_parameters():
                if pn.endswith('c_proj.weight'):
                    torch.nn.init.normal_(p, mean=0.0, std=0.02/math.sqrt(2 * config.n_layer))

            # report number of parameters (note we don't count the decoder parameters in lm_head)
            n_params = sum(p.numel() for p in self.transformer.parameters())
            log("number of parameters: %.2fM" % (n_params/1e6,))

        def _init_weights(self, module):
            if isinstance(module, nn.Linear):
                torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)
                if module.bias is not None:
                    torch.nn.init.zeros_(module.bias)
            elif isinstance(module, nn.Embedding):
                torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)
            elif isinstance(module, nn.LayerNorm):
                torch.nn.init.zeros_(module.bias)
                torch.nn.init.ones_(module.weight)

        def configure_optimizers(self, train_config):
            """
            This long function is unfortunately doing something very simple and is being very defensive:
            We are separating out all parameters of the model into two buckets: those that will experience
            weight decay for regularization and those that won't (biases, and layernorm/embedding weights).
            We are then returning the PyTorch optimizer object.
            """

            # separate out all parameters to those that will and won't experience regularizing weight decay
            decay = set()
            no_decay = set()
            whitelist_weight_modules = (torch.nn.Linear, )
            blacklist_weight_modules = (torch.nn.LayerNorm, torch.nn.Embedding)
            for mn, m in self.named_modules():
                for pn, p in m.named_parameters():
                    fpn = '%s.%s' % (mn, pn) if mn else pn # full param name
                    # random note: because named_modules and named_parameters are recursive
                    # we will see the same tensors p many many times. but doing it this way
                    # allows us to know which parent module any tensor p belongs to...
                    if pn.endswith('bias'):
                        # all biases will not be decayed
                        no_decay.add(fpn)
                    elif pn.endswith('weight') and isinstance(m, whitelist_weight_modules):
                        # weights of whitelist modules will be weight decayed
                        decay.add(fpn)
                    elif pn.endswith('weight') and isinstance(m, blacklist_weight_modules):
                        # weights of blacklist modules will NOT be weight decayed
                        no_decay.add(fpn)

            # validate that we considered every parameter
            param_dict = {pn: p for pn, p in self.named_parameters()}
            inter_params = decay & no_decay
            union_params = decay | no_decay
            assert len(inter_params) == 0, "parameters %s made it into both decay/no_decay sets!" % (str(inter_params), )
            assert len(param_dict.keys() - union_params) == 0, "parameters %s were not separated into either decay/no_decay set!" \
                                                        % (str(param_dict.keys() - union_params), )

            # create the pytorch optimizer object
            optim_groups = [
                {"params": [param_dict[pn] for pn in sorted(list(decay))], "weight_decay": train_config.weight_decay},
                {"params": [param_dict[pn] for pn in sorted(list(no_decay))], "weight_decay": 0.0},
            ]
            optimizer = torch.optim.AdamW(optim_groups, lr=train_config.learning_rate, betas=train_config.betas)
            return optimizer

        def forward(self, idx, targets=None):
            device = idx.device
            b, t = idx.size()
            assert t <= self.block_size, f"Cannot forward sequence of length {t}, block size is only {self.block_size}"
            pos = torch.arange(0, t, dtype=torch.long, device=device).unsqueeze(0) # shape (1, t)

            # forward the GPT model itself
            tok_emb = self.transformer.wte(idx) # token embeddings of shape (b, t, n_embd)
            pos_emb = self.transformer.wpe(pos) # position embeddings of shape (1, t, n_embd)
            x = self.transformer.drop(tok_emb + pos_emb)
            for block in self.transformer.h:
                x = block(x)
            x = self.transformer.ln_f(x)
            logits = self.lm_head(x)

            # if we are given some desired targets also calculate the loss
            loss = None
            if targets is not None:
                loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1)

            return logits, loss

        @torch.no_grad()
        def generate(self, idx, max_new_tokens, temperature=1.0, do_sample=False, top_k=None):
            """
            Take a conditioning sequence of indices idx (LongTensor of shape (b,t)) and complete
            the sequence max_new_tokens times, feeding the predictions back into the model each time.
            Most likely you'll want to make sure to be in model.eval() mode of operation for this.
            """
            for _ in range(max_new_tokens):
                # if the sequence context is growing too long we must crop it at block_size
                idx_cond = idx if idx.size(1) <= self.block_size else idx[:, -self.block_size:]
                # forward the model to get the logits for the index in the sequence
                logits, _ = self(idx_cond)
                # pluck the logits at the final step and scale by desired temperature
                logits = logits[:, -1, :] / temperature
                # optionally crop the logits to only the top k options
                if top_k is not None:
                    v, _ = torch.topk(logits, top_k)
                    logits[logits < v[:, [-1]]] = -float('Inf')
                # apply softmax to convert logits to (normalized) probabilities
                probs = F.softmax(logits, dim=-1)
                # either sample from the distribution or take the most likely element
                if do_sample:
                    idx_next = torch.multinomial(probs, num_samples=1)
                else:
                    _, idx_next = torch.topk(probs, k=1, dim=-1)
                # append sampled index to the running sequence and continue
                idx = torch.cat((idx, idx_next), dim=1)

            return idx

    # -- mingpt/trainer.py ----------------------------------------------------------------

    class Trainer:

        @staticmethod
        def get_default_config():
            C = CN()
            # device to train on
            C.device = 'auto'
            # dataloder parameters
            C.num_workers = 4
            # optimizer parameters
            C.max_iters = None
            C.batch_size = 64
            C.learning_rate = 3e-4
            C.betas = (0.9, 0.95)
            C.weight_decay = 0.1 # only applied on matmul weights
            C.grad_norm_clip = 1.0
            return C

        def __init__(self, config, model, train_dataset):
            self.config = config
            self.model = model
            self.optimizer = None
            self.train_dataset = train_dataset
            self.callbacks = defaultdict(list)

            # determine the device we'll train on
            if config.device == 'auto':
                self.device = 'cuda' if torch.cuda.is_available() else 'cpu'
            else:
                self.device = config.device
            self.model = self.model.to(self.device)
            log("running on device", self.device)

            # variables that will be assigned to trainer class later for logging and etc
            self.iter_num = 0
            self.iter_time = 0.0
            self.iter_dt = 0.0

        def add_callback(self, onevent: str, callback):
            self.callbacks[onevent].append(callback)

        def set_callback(self, onevent: str, callback):
            self.callbacks[onevent] = [callback]

        def trigger_callbacks(self, onevent: str):
            for callback in self.callbacks.get(onevent, []):
                callback(self)

        def run(self):
            model, config = self.model, self.config

            # setup the optimizer
            self.optimizer = model.configure_optimizers(config)

            # setup the dataloader
            train_loader = DataLoader(
                self.train_dataset,
                sampler=torch.utils.data.RandomSampler(self.train_dataset, replacement=True, num_samples=int(1e10)),
                shuffle=False,
                pin_memory=True,
                batch_size=config.batch_size,
                num_workers=config.num_workers,
            )

            model.train()
            self.iter_num = 0
            self.iter_time = time.time()
            data_iter = iter(train_loader)
            while True:

                # fetch the next batch (x, y) and re-init iterator if needed
                try:
                    batch = next(data_iter)
                except StopIteration:
                    data_iter = iter(train_loader)
                    batch = next(data_iter)
                batch = [t.to(self.device) for t in batch]
                x, y = batch

                # forward the model
                logits, self.loss = model(x, y)

                # backprop and update the parameters
                model.zero_grad(set_to_none=True)
                self.loss.backward()
                torch.nn.utils.clip_grad_norm_(model.parameters(), config.grad_norm_clip)
                self.optimizer.step()

                self.trigger_callbacks('on_batch_end')
                self.iter_num += 1
                tnow = time.time()
                self.iter_dt = tnow - self.iter_time
                self.iter_time = tnow

                # termination conditions
                if config.max_iters is not None and self.iter_num >= config.max_iters:
                    break

    # -- demo.ipynb -----------------------------------------------------------------------

    class SortDataset(Dataset):
        """
        Dataset for the Sort problem. E.g. for problem length 6:
        Input: 0 0 2 1 0 1 -> Output: 0 0 0 1 1 2
        Which will feed into the transformer concatenated as:
        input:  0 0 2 1 0 1 0 0 0 1 1
        output: I I I I I 0 0 0 1 1 2
        where I is "ignore", as the transformer is reading the input sequence
        """

        def __init__(self, split, length=6, num_digits=3):
            assert split in {'train', 'test'}
            self.split = split
            self.length = length
            self.num_digits = num_digits

        def __len__(self):
            return 10000 # ...

        def get_vocab_size(self):
            return self.num_digits

        def get_block_size(self):
            # the length of the sequence that will feed into transformer,
            # containing concatenated input and the output, but -1 because
            # the transformer starts making predictions at the last input element
            return self.length * 2 - 1

        def __getitem__(self, idx):

            # use rejection sampling to generate an input example from the desired split
            while True:
                # generate some random integers
                inp = torch.randint(self.num_digits, size=(self.length,), dtype=torch.long)
                # half of the time let's try to boost the number of examples that
                # have a large number of repeats, as this is what the model seems to struggle
                # with later in training, and they are kind of rate
                if torch.rand(1).item() < 0.5:
                    if inp.unique().nelement() > self.length // 2:
                        # too many unqiue digits, re-sample
                        continue
                # figure out if this generated example is train or test based on its hash
                h = hash(pickle.dumps(inp.tolist()))
                inp_split = 'test' if h % 4 == 0 else 'train' # designate 25% of examples as test
                if inp_split == self.split:
                    break # ok

            # solve the task: i.e. sort
            sol = torch.sort(inp)[0]

            # concatenate the problem specification and the solution
            cat = torch.cat((inp, sol), dim=0)

            # the inputs to the transformer will be the offset sequence
            x = cat[:-1].clone()
            y = cat[1:].clone()
            # we only want to predict at output locations, mask out the loss at the input locations
            y[:self.length-1] = -1
            return x, y

    return types.SimpleNamespace(set_seed=set_seed, CfgNode=CfgNode, GPT=GPT, Trainer=Trainer,
                                 SortDataset=SortDataset)


def run(torch, model_type='gpt-nano', n_layer=None, n_head=None, n_embd=None,
        learning_rate=5e-4, max_iters=8, batch_size=16, num_workers=0, log_every=2,
        max_batches=1, eval_batch_size=20, do_sample=False, top_k=None, seed=3407,
        init=None, log=print):
    """demo.ipynb's cells: train on SortDataset for ``max_iters`` and score the model on
    both splits; return what the notebook prints or computes."""
    m = build(torch, log=log)
    set_seed, GPT, Trainer, SortDataset = m.set_seed, m.GPT, m.Trainer, m.SortDataset
    DataLoader = torch.utils.data.DataLoader
    results = {"losses": [], "iters": [], "mistakes": []}

    set_seed(seed)

    # print an example instance of the dataset
    train_dataset = SortDataset('train')
    test_dataset = SortDataset('test')
    x, y = train_dataset[0]
    for a, b in zip(x,y):
        log(int(a),int(b))
    results["example"] = (x.tolist(), y.tolist())

    # create a GPT instance
    model_config = GPT.get_default_config()
    model_config.model_type = model_type
    model_config.n_layer, model_config.n_head, model_config.n_embd = n_layer, n_head, n_embd
    model_config.vocab_size = train_dataset.get_vocab_size()
    model_config.block_size = train_dataset.get_block_size()
    model = GPT(model_config)
    if init is not None:
        init(model)
    results["config"] = model_config.to_dict()
    results["config_str"] = str(model_config)

    # create a Trainer object
    train_config = Trainer.get_default_config()
    train_config.learning_rate = learning_rate # the model we're using is so small that we can go a bit faster
    train_config.max_iters = max_iters
    train_config.num_workers = num_workers
    train_config.batch_size = batch_size
    trainer = Trainer(train_config, model, train_dataset)

    def batch_end_callback(trainer):
        results["losses"].append(trainer.loss.item())
        if trainer.iter_num % log_every == 0:
            log(f"iter_dt {trainer.iter_dt * 1000:.2f}ms; iter {trainer.iter_num}: train loss {trainer.loss.item():.5f}")
            results["iters"].append(trainer.iter_num)
    trainer.set_callback('on_batch_end', batch_end_callback)

    trainer.run()
    results["groups"] = [(len(g["params"]), g["weight_decay"])
                         for g in trainer.optimizer.param_groups]

    # now let's perform some evaluation
    model.eval()

    def eval_split(trainer, split, max_batches):
        dataset = {'train':train_dataset, 'test':test_dataset}[split]
        n = train_dataset.length # naugy direct access shrug
        results = []
        mistakes_printed_already = 0
        loader = DataLoader(dataset, batch_size=eval_batch_size, num_workers=0, drop_last=False)
        for b, (x, y) in enumerate(loader):
            x = x.to(trainer.device)
            y = y.to(trainer.device)
            # isolate the input pattern alone
            inp = x[:, :n]
            sol = y[:, -n:]
            # let the model sample the rest of the sequence
            cat = model.generate(inp, n, do_sample=do_sample, top_k=top_k) # using greedy argmax, not sampling
            sol_candidate = cat[:, n:] # isolate the filled in sequence
            # compare the predicted sequence to the true sequence
            correct = (sol == sol_candidate).all(1).cpu() # Software 1.0 vs. Software 2.0 fight RIGHT on this line haha
            for i in range(x.size(0)):
                results.append(int(correct[i]))
                if not correct[i] and mistakes_printed_already < 3: # only print up to 5 mistakes to get a sense
                    mistakes_printed_already += 1
                    log("GPT claims that %s sorted is %s but gt is %s" % (inp[i].tolist(), sol_candidate[i].tolist(), sol[i].tolist()))
                    mistakes.append((inp[i].tolist(), sol_candidate[i].tolist(), sol[i].tolist()))
            if max_batches is not None and b+1 >= max_batches:
                break
        rt = torch.tensor(results, dtype=torch.float)
        log("%s final score: %d/%d = %.2f%% correct" % (split, rt.sum(), len(results), 100*rt.mean()))
        return rt.sum()

    mistakes = results["mistakes"]
    # run a lot of examples from both train and test through the model and verify the output correctness
    with torch.no_grad():
        train_score = eval_split(trainer, 'train', max_batches=max_batches)
        test_score  = eval_split(trainer, 'test',  max_batches=max_batches)
    results["scores"] = (train_score.item(), test_score.item())

    # let's run a random given sequence through the model as well
    n = train_dataset.length # naugy direct access shrug
    inp = torch.tensor([[0, 0, 2, 1, 0, 1]], dtype=torch.long).to(trainer.device)
    assert inp[0].nelement() == n
    with torch.no_grad():
        cat = model.generate(inp, n, do_sample=False)
    sol = torch.sort(inp[0])[0]
    sol_candidate = cat[:, n:]
    log('input sequence  :', inp.tolist())
    log('predicted sorted:', sol_candidate.tolist())
    log('gt sort         :', sol.tolist())
    log('matches         :', bool((sol == sol_candidate).all()))
    results["given"] = (sol_candidate.tolist(), sol.tolist(), bool((sol == sol_candidate).all()))
    return results


if __name__ == "__main__":
    import pyad as torch
    run(torch)
