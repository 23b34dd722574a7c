"""Join classifiers trained apart into one ONNX file whose output is the mean of theirs.

Why: two classifiers that read the same crop with different mistakes are, averaged, surer where they
agree and unsure where they do not, which is what the reader's rank bar needs. Joining them into one
file keeps the reader as it is (one session, one ``index-cls.onnx``), and one onnxruntime session also
keeps one thread pool: two sessions take turns on the two cores and each one's idle threads spin
while the other runs, which cost more than the second model's arithmetic in a first try.

    python -m vision.ensemble --out OUT.onnx MEMBER.onnx MEMBER.onnx ...   (training venv: needs onnx)

Every member must read the same input (same name, shape and class names) and give softmax
probabilities over the same classes; the file keeps the first member's metadata and records its
members in ``ensemble``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def _metadata(model) -> dict[str, str]:
    return {p.key: p.value for p in model.metadata_props}


def join(members: list[Path], out: Path) -> None:
    """Write to ``out`` one model whose output is the mean of the ``members``' outputs."""
    import onnx
    from onnx import compose, helper

    if len(members) < 2:
        raise SystemExit("an ensemble needs at least two member models")
    models = [onnx.load(str(p)) for p in members]
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
    nodes.append(helper.make_node("Sum", outs, ["ensemble_sum"], name="ensemble/Sum"))
    scale = helper.make_tensor("ensemble_scale", onnx.TensorProto.FLOAT, [], [1.0 / len(models)])
    nodes.append(helper.make_node("Mul", ["ensemble_sum", "ensemble_scale"], [out0.name], name="ensemble/Mean"))
    graph = helper.make_graph(nodes, "ensemble", [in0], [out0], initializer=inits + [scale], value_info=infos)
    joined = helper.make_model(graph, opset_imports=first.opset_import, ir_version=first.ir_version)
    meta = _metadata(first)
    meta["ensemble"] = ", ".join(p.name for p in members)
    meta["description"] = f"mean of {len(models)} classifiers: " + meta.get("description", "")
    onnx.helper.set_model_props(joined, meta)
    onnx.checker.check_model(joined)
    out.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(joined, str(out))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("members", type=Path, nargs="+", help="the classifiers to average (ONNX, same classes)")
    ap.add_argument("--out", type=Path, required=True)
    a = ap.parse_args(argv)
    missing = [str(p) for p in a.members if not p.exists()]
    if missing:
        raise SystemExit("no such model: " + ", ".join(missing))
    join(a.members, a.out)
    print(f"wrote {a.out} ({a.out.stat().st_size / 1e6:.1f} MB): the mean of {len(a.members)} classifiers")
    return 0


if __name__ == "__main__":
    sys.exit(main())
