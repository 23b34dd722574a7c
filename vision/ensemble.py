"""Join classifiers trained apart into one ONNX file whose output is the mean of theirs.

Why: two classifiers that read the same crop with different mistakes are, averaged, surer where they
agree and unsure where they do not, which is what the reader's rank bar needs. Joining them into one
file keeps the reader as it is (one session, one ``index-cls.onnx``), and one onnxruntime session also
keeps one thread pool: two sessions take turns on the two cores and each one's idle threads spin
while the other runs, which cost more than the second model's arithmetic in a first try.

    python -m vision.ensemble --out OUT.onnx MEMBER.onnx MEMBER.onnx ...   (training venv: needs onnx)
    python -m vision.ensemble --weights 1,1,2 --out OUT.onnx A.onnx B.onnx C.onnx   (a weighted mean)
    python -m vision.ensemble --member K --out MEMBER.onnx ENSEMBLE.onnx     (take member K out again)

Every member must read the same input (same name, shape and class names) and give softmax
probabilities over the same classes; the file keeps the first member's metadata and records its
members in ``ensemble``. Each member stays whole inside it (its tensors prefixed ``m0/``, ``m1/``, ...),
so a later session on a new machine, with no training runs, takes a member out and trains it further
(``vision.train_cls --init MEMBER.onnx``). ``--weights`` counts a member more than the others (recorded in
``weights``) at one copy's cost: the thirty-first session found the newest member reads better than the two older
ones, and a member given twice would be run twice. The shipped file's shares are in its metadata (``weights``;
1,1,1,3 since the thirty-third session), so a member trained further goes back in with the same weights.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path


def _metadata(model) -> dict[str, str]:
    return {p.key: p.value for p in model.metadata_props}


def _listed(meta: dict[str, str]) -> list[str]:
    """The member file names an ensemble's metadata records (none for a single model)."""
    listed = meta.get("ensemble", "")
    return listed.split(", ") if listed else []


def _description_prefix(count: int) -> str:
    """What :func:`join` puts before the first member's description (and :func:`take_member` removes)."""
    return f"mean of {count} classifiers: "


def _load(path: Path):
    """The ONNX model in ``path``; a file that is not one stops with its name."""
    import onnx

    try:
        return onnx.load(str(path))
    except Exception as e:  # onnx raises protobuf's DecodeError and others, none of them naming the file
        raise SystemExit(f"{path}: not a readable ONNX model ({type(e).__name__}: {e})") from None


def join(members: list[Path], out: Path, weights: list[float] | None = None) -> None:
    """Write to ``out`` one model whose output is the mean of the ``members``' outputs, weighted by ``weights``
    (one per member, any positive scale; equal when None)."""
    import onnx
    from onnx import compose, helper

    if len(members) < 2:
        raise SystemExit("an ensemble needs at least two member models")
    if weights is None:
        weights = [1.0] * len(members)
    if len(weights) != len(members) or not all(math.isfinite(w) and w > 0 for w in weights):
        raise SystemExit(f"--weights needs one positive number per member ({len(members)}), not {weights}")
    shares = [w / sum(weights) for w in weights]
    models = [_load(p) for p in members]
    first = models[0]
    names = _metadata(first).get("names")
    in0, out0 = first.graph.input[0], first.graph.output[0]
    for path, m in zip(members[1:], models[1:]):
        if _metadata(m).get("names") != names:
            raise SystemExit(f"{path}: its class names differ from {members[0]}'s")
        if m.graph.input[0].type != in0.type or m.graph.output[0].type != out0.type:
            raise SystemExit(f"{path}: its input or output shape differs from {members[0]}'s")
    nodes, inits, infos, outs = [], [], [], []
    for k, m in enumerate(models):
        m = compose.add_prefix(m, f"m{k}/")
        graph = m.graph
        src = graph.input[0].name
        for node in graph.node:  # every member reads the one shared input
            node.input[:] = [in0.name if x == src else x for x in node.input]
        nodes += graph.node
        inits += graph.initializer
        infos += graph.value_info
        outs.append(graph.output[0].name)
    scales = [helper.make_tensor(f"ensemble_share{k}", onnx.TensorProto.FLOAT, [], [w]) for k, w in enumerate(shares)]
    for k, o in enumerate(outs):
        nodes.append(helper.make_node("Mul", [o, f"ensemble_share{k}"], [f"ensemble_part{k}"],
                                      name=f"ensemble/Share{k}"))
    nodes.append(helper.make_node("Sum", [f"ensemble_part{k}" for k in range(len(outs))], [out0.name],
                                  name="ensemble/Mean"))
    graph = helper.make_graph(nodes, "ensemble", [in0], [out0], initializer=inits + scales, value_info=infos)
    joined = helper.make_model(graph, opset_imports=first.opset_import, ir_version=first.ir_version)
    meta = _metadata(first)
    meta["ensemble"] = ", ".join(p.name for p in members)
    if len(set(shares)) > 1:  # an equal mean records no weights, as before --weights existed
        meta["weights"] = ", ".join(f"{w:g}" for w in shares)
    meta["description"] = _description_prefix(len(models)) + meta.get("description", "")
    onnx.helper.set_model_props(joined, meta)
    onnx.checker.check_model(joined)
    out.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(joined, str(out))


def members_of(path: Path) -> list[str]:
    """The file names of the members averaged in ``path`` (empty when it is a single model)."""
    return _listed(_metadata(_load(path)))


def take_member(path: Path, k: int, out: Path) -> None:
    """Write to ``out`` member ``k`` of the ensemble ``path`` as the model it was before :func:`join`."""
    import onnx
    from onnx import helper

    model = _load(path)
    meta = _metadata(model)
    names = _listed(meta)
    if not names:
        raise SystemExit(f"{path}: not an ensemble (no 'ensemble' entry in its metadata)")
    if not 0 <= k < len(names):
        raise SystemExit(f"{path}: no member {k}; its members are " + ", ".join(f"{i} ({n})" for i, n in enumerate(names)))
    prefix, graph = f"m{k}/", model.graph

    def bare(name: str) -> str:
        return name[len(prefix):] if name.startswith(prefix) else name

    nodes = [n for n in graph.node if n.output and all(o.startswith(prefix) for o in n.output)]
    used = {i for n in nodes for i in n.input}
    inits = [i for i in graph.initializer if i.name in used]
    infos = [v for v in graph.value_info if v.name.startswith(prefix)]
    for node in nodes:
        node.name = bare(node.name)
        node.input[:] = [bare(x) for x in node.input]
        node.output[:] = [bare(x) for x in node.output]
    for tensor in (*inits, *infos):
        tensor.name = bare(tensor.name)
    single = helper.make_graph(nodes, graph.name, [graph.input[0]], [graph.output[0]], initializer=inits,
                               value_info=infos)
    taken = helper.make_model(single, opset_imports=model.opset_import, ir_version=model.ir_version)
    del meta["ensemble"]
    meta.pop("weights", None)
    meta["description"] = meta.get("description", "").removeprefix(_description_prefix(len(names)))
    helper.set_model_props(taken, meta)
    onnx.checker.check_model(taken)
    out.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(taken, str(out))


def _weights(text: str) -> list[float]:
    """``--weights``: a comma list of numbers (checked against the members by :func:`join`)."""
    try:
        return [float(v) for v in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a comma list of numbers: {text!r}") from None


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("members", type=Path, nargs="+", help="the classifiers to average (ONNX, same classes)")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--member", type=int, help="take this member (0, 1, ...) out of the one ensemble given")
    ap.add_argument("--weights", type=_weights, help="comma list, one per member: a weighted mean (default: equal)")
    a = ap.parse_args(argv)
    missing = [str(p) for p in a.members if not p.exists()]
    if missing:
        raise SystemExit("no such model: " + ", ".join(missing))
    if a.member is not None:
        if a.weights is not None:
            raise SystemExit("--weights is for joining members, not for taking one out")
        if len(a.members) != 1:
            raise SystemExit("--member takes a member out of one ensemble file: give exactly one")
        take_member(a.members[0], a.member, a.out)
        print(f"wrote {a.out}: member {a.member} of {a.members[0]}")
        return 0
    join(a.members, a.out, a.weights)
    how = "" if a.weights is None else f" weighted {','.join(f'{w:g}' for w in a.weights)}"
    print(f"wrote {a.out} ({a.out.stat().st_size / 1e6:.1f} MB): the mean of {len(a.members)} classifiers{how}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
