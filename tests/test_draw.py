"""`graphir draw` / `view` and Model.draw: what the drawing holds (boxes, edges, labels, badges,
clusters, dialect and profile colours), checked on real networks from the fixtures."""
from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from lxml import etree

import graphir
from graphir import opset
from graphir.cli import main
from graphir.commands.validate import problems_by_node
from graphir.drawing import build_scene, draw
from graphir.drawing.overlays import PROBLEM_FILL
from graphir.ops.openvino.core import Constant

FIXTURES = Path(__file__).parent / "fixtures"
CORPUS = FIXTURES / "corpus"
CONTROL_FLOW = FIXTURES / "ir" / "control_flow"
SVG = "{http://www.w3.org/2000/svg}"
XLINK = "{http://www.w3.org/1999/xlink}"


def svg_tree(text: str) -> etree._Element:
    return etree.fromstring(text.encode("utf-8"))


def svg_groups(root: etree._Element, kind: str) -> dict[str, etree._Element]:
    """SVG groups of a class (node, edge, cluster) by their id."""
    return {g.get("id"): g for g in root.iter(f"{SVG}g") if kind in (g.get("class") or "").split()}


def texts(element: etree._Element) -> list[str]:
    return ["".join(t.itertext()).strip() for t in element.iter(f"{SVG}text")]  # edge labels start with an en space


def tooltip(element: etree._Element) -> str:
    return next(a.get(f"{XLINK}title") for a in element.iter(f"{SVG}a"))


def fill(element: etree._Element) -> str:
    return next(p.get("fill") for p in element.iter(f"{SVG}path", f"{SVG}polygon"))


@pytest.mark.parametrize("name", ["transformer_encoder", "cnn_bn_pool", "masked_attention", "lstm"])
def test_every_node_and_edge_is_drawn_with_its_labels(name: str) -> None:
    model = graphir.read_model(CORPUS / f"{name}.xml")
    root = svg_tree(model.draw())
    nodes, edges = svg_groups(root, "node"), svg_groups(root, "edge")
    drawn = [n for n in model.get_ordered_ops() if not isinstance(n.op, Constant)]
    assert set(nodes) == {f"n{n.id}" for n in drawn}
    expected_edges = []
    for node in drawn:
        lines = texts(nodes[f"n{node.id}"])
        assert lines[0] == f"{node.type_name}-{node.version}"
        assert lines[1] == node.name or "..." in lines[1] and node.name.startswith(lines[1].split("...")[0])
        for src in node.inputs:
            if src is not None and not isinstance(src.node.op, Constant):
                t = src.node.output_types[src.index]
                port = f"{src.index}: " if len(src.node.output_types) > 1 else ""
                expected_edges.append((f"n{src.node.id}", f"n{node.id}", f"{port}{t.element_type}{t.shape}"))
    # graphviz titles each edge "tail->head" and writes the label as the edge's text
    got = sorted(("".join(e.find(f"{SVG}title").itertext()).split("->")[0],
                  "".join(e.find(f"{SVG}title").itertext()).split("->")[1], texts(e)[0]) for e in edges.values())
    assert got == sorted(expected_edges)


def test_constants_become_badges_on_their_consumers() -> None:
    x = opset.parameter([2, 3], "f32", name="x")
    y = opset.add(x, opset.constant(np.float32(0.5), name="half"), name="add")
    z = opset.multiply(y, opset.constant(np.ones((2, 3), np.float32), name="ones"), name="mul")
    model = graphir.Model([opset.result(z, name="out")], [x], name="badges")
    scene = build_scene(model)
    assert [b.name for b in scene.boxes.values()] == ["x", "add", "mul", "out"]
    assert {b.name: b.badges for b in scene.boxes.values()} == {
        "x": [], "add": ["f32[] = 0.5"], "mul": ["f32[2,3]"], "out": []}
    nodes = {texts(g)[1]: texts(g) for g in svg_groups(svg_tree(model.draw()), "node").values()}
    assert nodes["add"] == ["Add-opset1", "add", "f32[] = 0.5"]
    assert nodes["mul"] == ["Multiply-opset1", "mul", "f32[2,3]"]


def test_a_constant_feeding_two_nodes_is_a_badge_on_each() -> None:
    x = opset.parameter([4], "f32", name="x")
    c = opset.constant(np.arange(4, dtype=np.float32), name="c")
    model = graphir.Model([opset.result(opset.add(x, c, name="a"), name="o1"),
                           opset.result(opset.subtract(x, c, name="s"), name="o2")], [x])
    scene = build_scene(model)
    assert {b.name: b.badges for b in scene.boxes.values() if b.badges} == {
        "a": ["f32[4] = [0,1,2,3]"], "s": ["f32[4] = [0,1,2,3]"]}


@pytest.mark.parametrize("fixture, bodies", [
    ("torch_if", ["then_body", "else_body"]), ("torch_loop", ["body"]), ("ti_rnn", ["body"])])
def test_bodies_are_nested_clusters(fixture: str, bodies: list[str]) -> None:
    model = graphir.read_model(CONTROL_FLOW / f"{fixture}.xml")
    owner = next(n for n in model.get_ordered_ops() if n.type_name in ("If", "Loop", "TensorIterator"))
    root = svg_tree(model.draw())
    clusters = svg_groups(root, "cluster")
    assert sorted(clusters) == sorted(f"cluster_n{owner.id}_{b}" for b in bodies)
    nodes = svg_groups(root, "node")
    for body_name in bodies:
        body = getattr(owner.op, body_name)
        assert texts(clusters[f"cluster_n{owner.id}_{body_name}"]) == [f"{owner.name}: {body_name}"]
        inner = [n for n in body.get_ordered_ops() if not isinstance(n.op, Constant)]
        for node in inner:
            assert texts(nodes[f"n{owner.id}_{body_name}_{node.id}"])[0] == f"{node.type_name}-{node.version}"
        # each body Parameter hangs from the owner by a dashed edge
        dashed = [e for e in svg_groups(root, "edge").values()
                  if any(p.get("stroke-dasharray") for p in e.iter(f"{SVG}path"))]
        heads = {"".join(e.find(f"{SVG}title").itertext()).split("->")[1] for e in dashed}
        assert {f"n{owner.id}_{body_name}_{p.id}" for p in body.get_parameters()} <= heads
    # each cluster's frame encloses the boxes of its body (graphviz draws clusters first; check geometry)
    for body_name in bodies:
        xs, ys = _points(clusters[f"cluster_n{owner.id}_{body_name}"])
        body = getattr(owner.op, body_name)
        for node in body.get_ordered_ops():
            if isinstance(node.op, Constant):
                continue
            nx_, ny_ = _points(nodes[f"n{owner.id}_{body_name}_{node.id}"])
            assert min(xs) <= min(nx_) and max(nx_) <= max(xs) and min(ys) <= min(ny_) and max(ny_) <= max(ys)


def _points(group: etree._Element) -> tuple[list[float], list[float]]:
    shape = next(group.iter(f"{SVG}path", f"{SVG}polygon"))
    numbers = [float(v) for v in re.findall(r"-?\d+(?:\.\d+)?", shape.get("d") or shape.get("points"))]
    return numbers[0::2], numbers[1::2]


def _mixed_model() -> graphir.Model:
    """Select (DirectML can express it) feeding a Relu (it has no DirectML conversion)."""
    c = opset.parameter([2, 2], "boolean", name="cond")
    a = opset.parameter([2, 2], "f32", name="a")
    b = opset.parameter([2, 2], "f32", name="b")
    y = opset.relu(opset.select(c, a, b, name="select"), name="relu")
    return graphir.Model([opset.result(y, name="out")], [c, a, b], name="mixed")


def test_dialect_colours_exactly_the_nodes_validate_reports() -> None:
    model = _mixed_model()
    problems = problems_by_node(model, "directml")
    assert [model.node(i).name for i in problems] == ["relu"]
    nodes = svg_groups(svg_tree(model.draw(dialect="directml")), "node")
    for node in model.get_ordered_ops():
        g = nodes[f"n{node.id}"]
        if node.id in problems:
            assert fill(g) == PROBLEM_FILL
            assert tooltip(g) == f"Relu-opset1 relu\ncannot be expressed in directml: {problems[node.id][0]}"
            assert g.find(f"{SVG}title").text == tooltip(g)  # what browsers show on hover
        else:
            assert fill(g) != PROBLEM_FILL
            assert "cannot be expressed" not in tooltip(g)


def test_dialect_colouring_of_a_real_network_matches_validate(capsys: pytest.CaptureFixture[str]) -> None:
    path = CORPUS / "mlp.xml"
    model = graphir.read_model(path)
    nodes = svg_groups(svg_tree(draw(model, dialect="directml")), "node")
    coloured = {key for key, g in nodes.items() if fill(g) == PROBLEM_FILL}
    assert main(["validate", str(path), "--dialect", "directml", "--json"]) == 1
    reported = json.loads(capsys.readouterr().out)["problems"]
    assert len(coloured) == len(reported) == 9
    assert sorted(tooltip(nodes[k]).split("\n", 1)[1] for k in coloured) == sorted(
        f"cannot be expressed in directml: {line}" for line in reported)


def test_profile_fills_nodes_by_time_and_shows_it() -> None:
    model = graphir.read_model(CORPUS / "mlp.xml")
    model.reshape({0: "[2,16]"})  # an [?,?] input: --random would make it [1,1]
    scene_nodes = svg_groups(svg_tree(draw(model, profile=True)), "node")
    for node in model.get_ordered_ops():
        if isinstance(node.op, Constant):
            continue
        lines = texts(scene_nodes[f"n{node.id}"])
        if node.type_name in ("Parameter", "Result"):  # the interpreter does not time them
            assert len(lines) == 2
        else:
            assert re.fullmatch(r"\d+\.\d us", lines[2]), lines
    assert "#f0502e" in {fill(g) for g in scene_nodes.values()}  # the slowest node is the hottest colour


def test_html_page_is_self_contained_and_holds_every_node() -> None:
    model = graphir.read_model(CORPUS / "transformer_encoder.xml")
    page = model.draw("html")
    assert page.startswith("<!DOCTYPE html>")
    assert not re.search(r"<(script|link|img|iframe)[^>]*\s(src|href)=", page)
    assert not re.search(r"url\(|@import|fetch\(|XMLHttpRequest", page)
    data = json.loads(re.search(r'<script type="application/json" id="graphir-data">(.*?)</script>', page, re.S)
                      .group(1))
    drawn = [n for n in model.get_ordered_ops() if not isinstance(n.op, Constant)]
    assert set(data["nodes"]) == {f"n{n.id}" for n in drawn}
    mvn = next(n for n in drawn if n.type_name == "MVN")
    shown = data["nodes"][f"n{mvn.id}"]
    assert shown["attributes"]["eps"] == str(mvn.op.eps)
    assert set(shown["attributes"]) == set(type(mvn.op).model_fields)
    assert shown["name"] == mvn.name and shown["type"] == f"MVN-{mvn.version}"
    assert f'data-nodes="{len(drawn)}"' in page


def test_repr_for_jupyter() -> None:
    model = graphir.read_model(CORPUS / "mlp.xml")
    assert svg_tree(model._repr_svg_()).tag == f"{SVG}svg"
    html = model._repr_html_()
    assert html.startswith("<iframe srcdoc=\"&lt;!DOCTYPE html&gt;")


def test_draw_command_writes_svg_and_html(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = CONTROL_FLOW / "torch_if.xml"
    assert main(["draw", str(src), "-o", str(tmp_path / "m.svg")]) == 0
    assert capsys.readouterr().out == f"wrote {tmp_path / 'm.svg'}\n"
    assert svg_groups(svg_tree((tmp_path / "m.svg").read_text()), "cluster")
    assert main(["draw", str(src), "-o", str(tmp_path / "m.html"), "--dialect", "onednn"]) == 0
    assert "<svg" in (tmp_path / "m.html").read_text()


def test_draw_command_reshapes_inputs_first(tmp_path: Path) -> None:
    out = tmp_path / "m.svg"
    assert main(["draw", str(CORPUS / "cnn_bn_pool.xml"), "-o", str(out), "--input", "[2,3,16,16]"]) == 0
    labels = {t for g in svg_groups(svg_tree(out.read_text()), "edge").values() for t in texts(g)}
    assert "f32[2,3,16,16]" in labels


def test_draw_command_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["draw", str(CORPUS / "mlp.xml"), "-o", str(tmp_path / "m.png")]) == 2
    assert capsys.readouterr().err == (f"graphir draw: error: --output {tmp_path / 'm.png'}: "
                                       "expected a .svg or .html file\n")
    assert main(["draw", str(tmp_path / "missing.xml"), "-o", str(tmp_path / "m.svg")]) == 2
    assert "no such file" in capsys.readouterr().err


def test_view_prints_the_page_path_without_a_display(monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.setattr("sys.platform", "linux")
    assert main(["view", str(CORPUS / "mlp.xml")]) == 0
    path = Path(capsys.readouterr().out.strip())
    try:
        assert path.suffix == ".html" and "mlp" in path.name
        assert 'id="graphir-data"' in path.read_text()
    finally:
        path.unlink()


def test_names_with_markup_and_quotes_survive_dot_svg_and_html() -> None:
    odd = 'a</script><!--"b\\c&d'
    x = opset.parameter([2], "f32", name="x")
    model = graphir.Model([opset.result(opset.relu(x, name=odd), name="out")], [x], name="odd")
    nodes = svg_groups(svg_tree(model.draw()), "node")
    assert [texts(g)[1] for g in nodes.values()] == ["x", odd, "out"]
    page = model.draw("html")
    data = json.loads(re.search(r'<script type="application/json" id="graphir-data">(.*?)</script>', page, re.S)
                      .group(1))
    assert [n["name"] for n in data["nodes"].values()] == ["x", odd, "out"]
    assert page.count("</script>") == 2  # the data's and the viewer's


@pytest.mark.parametrize("picture, source", [
    ("residual_block.svg", CORPUS / "residual_block.xml"), ("torch_if.svg", CONTROL_FLOW / "torch_if.xml")])
def test_readme_pictures_are_what_draw_makes_now(picture: str, source: Path) -> None:
    committed = (Path(__file__).parent.parent / "docs" / "images" / picture).read_text(encoding="utf-8")
    assert graphir.read_model(source).draw() == committed, (
        f"docs/images/{picture} is stale: graphir draw {source.relative_to(Path(__file__).parent.parent)} "
        f"-o docs/images/{picture}")
