"""Sequential and ModuleList editing (append/insert/extend/pop, + and *), ModuleList's
folded repr, and the state dict hooks of nn.Module, each against torch 2.13."""
import collections

import numpy as np
import pytest

import pyad
from pyad import nn

torch = pytest.importorskip("torch")


def layers(L, n=4):
    """n distinguishable leaf modules of the library L."""
    return [L.nn.Linear(i + 1, i + 2) for i in range(n)]


def shape_of(container):
    """What a container holds, comparable across libraries: (key, in, out) per entry."""
    return [(k, m.in_features, m.out_features) for k, m in container._modules.items()]


def run_both(op):
    """op(L, container, extra) on a torch and a pyad container built the same way; the
    results' layouts must agree (or both raise the same exception type)."""
    outcomes = []
    for L in (torch, pyad):
        seq = L.nn.Sequential(*layers(L, 3))
        extra = L.nn.Sequential(*layers(L, 2))
        try:
            result = op(L, seq, extra)
        except Exception as ex:          # noqa: BLE001 - the type is what we compare
            outcomes.append(("raised", type(ex)))
            continue
        if isinstance(result, L.nn.Module) and hasattr(result, "_modules") and \
                not isinstance(result, L.nn.Linear):
            outcomes.append((type(result).__name__, shape_of(result), shape_of(seq),
                             result is seq))
        else:
            outcomes.append(("value", (result.in_features, result.out_features),
                             shape_of(seq)))
    assert outcomes[0] == outcomes[1]
    return outcomes[1]


SEQUENTIAL_OPS = {
    "add": lambda L, s, e: s + e,
    "iadd": lambda L, s, e: s.__iadd__(e),
    "mul": lambda L, s, e: s * 2,
    "rmul": lambda L, s, e: 3 * s,
    "imul": lambda L, s, e: s.__imul__(2),
    "imul 1": lambda L, s, e: s.__imul__(1),
    "mul 0": lambda L, s, e: s * 0,
    "mul float": lambda L, s, e: s * 2.0,
    "imul -1": lambda L, s, e: s.__imul__(-1),
    "add list": lambda L, s, e: s + [L.nn.Linear(1, 1)],
    "iadd list": lambda L, s, e: s.__iadd__([L.nn.Linear(1, 1)]),
    "pop": lambda L, s, e: s.pop(1),
    "pop -1": lambda L, s, e: s.pop(-1),
    "pop slice": lambda L, s, e: s.pop(slice(0, 2)),
    "pop out of range": lambda L, s, e: s.pop(3),
    "insert 0": lambda L, s, e: s.insert(0, L.nn.Linear(7, 7)),
    "insert end": lambda L, s, e: s.insert(3, L.nn.Linear(7, 7)),
    "insert -1": lambda L, s, e: s.insert(-1, L.nn.Linear(7, 7)),
    "insert -3": lambda L, s, e: s.insert(-3, L.nn.Linear(7, 7)),
    "insert too far": lambda L, s, e: s.insert(4, L.nn.Linear(7, 7)),
    "insert not a module": lambda L, s, e: s.insert(0, 5),
    "extend": lambda L, s, e: s.extend(e),
    "extend list": lambda L, s, e: s.extend([L.nn.Linear(7, 7)]),
    "append": lambda L, s, e: s.append(L.nn.Linear(7, 7)),
    "slice": lambda L, s, e: s[1:],
    "del renumbers": lambda L, s, e: (s.__delitem__(0), s)[1],
}


@pytest.mark.parametrize("name", list(SEQUENTIAL_OPS))
def test_sequential_editing_matches_torch(name):
    run_both(SEQUENTIAL_OPS[name])


def test_sequential_products_share_the_modules_and_run():
    seq = nn.Sequential(nn.Linear(2, 2), nn.Tanh())
    doubled = seq * 2
    assert doubled[0] is doubled[2] is seq[0]
    assert len(list(doubled.parameters())) == 2          # shared, counted once
    x = pyad.ones(1, 2)
    assert bool((doubled(x) == seq(seq(x))).all())


def test_sequential_del_renumbers_named_entries_as_torch():
    outcomes = []
    for L in (torch, pyad):
        seq = L.nn.Sequential(collections.OrderedDict(
            [("a", L.nn.ReLU()), ("b", L.nn.Tanh()), ("c", L.nn.ReLU())]))
        del seq[0]
        outcomes.append([(k, type(m).__name__) for k, m in seq._modules.items()])
    assert outcomes[0] == outcomes[1] == [("0", "Tanh"), ("1", "ReLU")]


def test_sequential_slice_keeps_the_subclass():
    class Mine(nn.Sequential):
        pass

    assert type(Mine(nn.ReLU(), nn.Tanh())[1:]) is Mine


MODULELIST_OPS = {
    "add": lambda L, m: [type(x).__name__ for x in m + [L.nn.ReLU()]],
    "add tuple": lambda L, m: [type(x).__name__ for x in m + (L.nn.ReLU(), L.nn.Tanh())],
    "add keeps self": lambda L, m: (m + L.nn.ModuleList([L.nn.ReLU()]), len(m))[1],
    "iadd": lambda L, m: [type(x).__name__ for x in m.__iadd__([L.nn.ReLU()])],
    "pop": lambda L, m: (type(m.pop(0)).__name__, [type(x).__name__ for x in m]),
    "pop -1": lambda L, m: (type(m.pop(-1)).__name__, list(m._modules)),
    "pop slice": lambda L, m: (type(m.pop(slice(1, None))).__name__, len(m)),
    "insert": lambda L, m: (m.insert(1, L.nn.ReLU()), [type(x).__name__ for x in m]),
    "insert end": lambda L, m: (m.insert(3, L.nn.ReLU()), [type(x).__name__ for x in m]),
    "extend": lambda L, m: [type(x).__name__ for x in m.extend([L.nn.ReLU()])],
    "extend not iterable": lambda L, m: m.extend(5),
    "setitem": lambda L, m: (m.__setitem__(-1, L.nn.ReLU()), [type(x).__name__ for x in m]),
    "getitem out of range": lambda L, m: m[3],
    "slice": lambda L, m: (type(m[:2]).__name__, len(m[:2])),
    "repr": lambda L, m: repr(m + [L.nn.Linear(2, 2)] * 3 + [L.nn.ReLU()]),
    "empty repr": lambda L, m: repr(L.nn.ModuleList()),
}


@pytest.mark.parametrize("name", list(MODULELIST_OPS))
def test_modulelist_editing_and_repr_match_torch(name):
    outcomes = []
    for L in (torch, pyad):
        mlist = L.nn.ModuleList([L.nn.Linear(1, 2), L.nn.Tanh(), L.nn.Identity()])
        try:
            outcomes.append(MODULELIST_OPS[name](L, mlist))
        except Exception as ex:          # noqa: BLE001 - the type is what we compare
            outcomes.append(("raised", type(ex)))
    assert outcomes[0] == outcomes[1]


def test_nested_modulelist_repr_matches_torch():
    reprs = []
    for L in (torch, pyad):
        block = lambda: L.nn.Sequential(L.nn.Linear(2, 2), L.nn.ReLU())     # noqa: E731
        reprs.append(repr(L.nn.ModuleList([block(), block(), L.nn.Linear(2, 3)])))
    assert reprs[0] == reprs[1]


# -- state dict hooks ------------------------------------------------------------------

def record_hooks(L, log):
    """A two-level model with every kind of state dict hook, logging calls."""
    net = L.nn.Sequential(L.nn.Linear(2, 2), L.nn.Sequential(L.nn.Linear(2, 1)))
    for name, module in net.named_modules():
        tag = name or "root"
        module.register_state_dict_pre_hook(
            lambda m, prefix, keep_vars, tag=tag: log.append(("pre", tag, prefix, keep_vars)))
        module._register_state_dict_hook(
            lambda m, sd, prefix, meta, tag=tag: log.append(("post", tag, prefix,
                                                             len(sd), meta["version"])))
        module._register_load_state_dict_pre_hook(
            lambda sd, prefix, meta, strict, missing, unexpected, errors, tag=tag:
            log.append(("load pre", tag, prefix, sorted(sd), strict)))
        module.register_load_state_dict_pre_hook(
            lambda m, sd, prefix, *rest, tag=tag: log.append(("load pre public", tag,
                                                              prefix)))
        module.register_load_state_dict_post_hook(
            lambda m, keys, tag=tag: log.append(("load post", tag, list(keys.missing_keys),
                                                 list(keys.unexpected_keys))))
    return net


def test_state_dict_hooks_run_in_torchs_order_with_torchs_arguments():
    logs = []
    for L in (torch, pyad):
        log = []
        net = record_hooks(L, log)
        state = net.state_dict(keep_vars=True)
        state = {k: v for k, v in state.items() if k != "0.bias"}
        state["1.extra"] = state["0.weight"]
        net.load_state_dict(state, strict=False)
        logs.append(log)
    assert logs[0] == logs[1]
    assert logs[1][0] == ("pre", "root", "", True)


def test_state_dict_carries_metadata_and_positional_arguments_warn_as_torch():
    t, p = torch.nn.Sequential(torch.nn.Linear(1, 1)), nn.Sequential(nn.Linear(1, 1))
    assert dict(p.state_dict()._metadata) == {k: dict(v) for k, v in
                                              t.state_dict()._metadata.items()}
    with pytest.warns(FutureWarning, match="Positional args are being deprecated"):
        p.state_dict(None, "net.")
    assert list(p.state_dict(prefix="net.")) == ["net.0.weight", "net.0.bias"]


def test_state_dict_hook_results_as_torch():
    for L in (torch, pyad):
        lin = L.nn.Linear(1, 1)
        handle = lin._register_state_dict_hook(
            lambda m, sd, prefix, meta: {"replaced": 1})
        assert lin.state_dict() == {"replaced": 1}
        handle.remove()
        assert list(lin.state_dict()) == ["weight", "bias"]

        def public(m, sd, prefix, meta):
            sd["added"] = 0
        lin.register_state_dict_post_hook(public)
        assert list(lin.state_dict()) == ["weight", "bias", "added"]
        with pytest.raises(RuntimeError, match="previously registered via "
                                               "register_state_dict_post_hook"):
            lin._register_state_dict_hook(public)
        lin.register_state_dict_post_hook(lambda m, sd, prefix, meta: {})
        with pytest.raises(RuntimeError, match="state_dict post-hook must return None"):
            lin.state_dict()


def test_a_state_dict_pre_hook_runs_before_the_module_saves_its_entries():
    keys = []
    for L in (torch, pyad):
        lin = L.nn.Linear(1, 1)
        lin.register_state_dict_pre_hook(
            lambda m, prefix, keep_vars: m.register_buffer("late", L.zeros(1)))
        keys.append(list(lin.state_dict()))
    assert keys[0] == keys[1] == ["weight", "bias", "late"]


def test_load_state_dict_pre_hook_can_rename_keys_and_post_hook_can_clear_missing():
    for L in (torch, pyad):
        lin = L.nn.Linear(2, 1).double()

        def rename(state_dict, prefix, *rest):
            if prefix + "w" in state_dict:
                state_dict[prefix + "weight"] = state_dict.pop(prefix + "w")
        lin._register_load_state_dict_pre_hook(rename)
        lin.register_load_state_dict_post_hook(lambda m, keys: keys.missing_keys.clear())
        w = np.array([[1.0, 2.0]])
        result = lin.load_state_dict({"w": L.tensor(w)})
        assert repr(result) == "<All keys matched successfully>"
        np.testing.assert_array_equal(np.asarray(lin.weight.detach().numpy()
                                                 if L is torch else lin.weight.data), w)
        lin.register_load_state_dict_post_hook(lambda m, keys: keys)
        with pytest.raises(AssertionError, match="not expected to return new values"):
            lin.load_state_dict({"w": L.tensor(w)})


def test_load_state_dict_errors_and_assign_match_torch():
    results = []
    for L in (torch, pyad):
        net = L.nn.Sequential(L.nn.Linear(2, 2), L.nn.ReLU())
        good = {k: v.detach().clone() for k, v in net.state_dict().items()}
        row = []
        for state, strict in (({"0.weight": good["0.weight"]}, False),
                              (dict(good, **{"1.x": L.zeros(1), "2.y": L.zeros(1),
                                             "z": L.zeros(1)}), False)):
            keys = net.load_state_dict(state, strict=strict)
            row.append((keys.missing_keys, keys.unexpected_keys))
        for state in ({"0.weight": good["0.weight"]}, dict(good, extra=L.zeros(1)),
                      dict(good, **{"0.weight": L.zeros(3, 3)})):
            with pytest.raises(RuntimeError) as info:
                net.load_state_dict(state)
            row.append(str(info.value).replace("torch.Size([", "(").replace("])", ")")
                       .replace("(3, 3)", "(3, 3)"))
        new_weight = L.ones(2, 2)
        net.load_state_dict(dict(good, **{"0.weight": new_weight}), assign=True)
        row.append((net[0].weight is new_weight, type(net[0].weight).__name__,
                    net[0].weight.requires_grad))
        scalar = L.nn.Module()
        scalar.register_buffer("s", L.zeros(()))
        scalar.load_state_dict({"s": L.ones(1)})       # a 1-element value into a 0-d one
        row.append(float(scalar.s))
        results.append(row)
    assert results[0][:2] == results[1][:2]
    for t_msg, p_msg in zip(results[0][2:5], results[1][2:5]):
        assert t_msg.split(":")[0] == p_msg.split(":")[0]
    assert results[0][2].splitlines()[1] == results[1][2].splitlines()[1]
    assert results[0][5:] == results[1][5:]


def test_buffer_assignment_registers_a_buffer_as_torch():
    names = {}
    for lib in (torch, pyad):
        m = lib.nn.Linear(2, 2)
        m.steps = lib.nn.Buffer(lib.zeros(1))
        m.scratch = lib.nn.Buffer(lib.ones(2), persistent=False)
        m.register_buffer("b3", lib.ones(1))
        m.b3 = lib.nn.Buffer(lib.zeros(3), persistent=False)       # re-registered
        b = lib.nn.Buffer(lib.ones(2, requires_grad=True))
        names[lib.__name__] = (list(m.state_dict()), [n for n, _ in m.named_buffers()],
                               isinstance(m.steps, lib.nn.Buffer), b.requires_grad,
                               b.is_leaf, tuple(m.b3.shape))
        with pytest.raises(TypeError):
            m.weight = lib.nn.Buffer(lib.zeros(2, 2))              # a parameter's name
    assert names["pyad"] == names["torch"]
    data = pyad.zeros(3)
    buf = pyad.nn.Buffer(data)
    buf.data[0] = 5.0
    assert float(data[0]) == 5.0                                   # shares memory
