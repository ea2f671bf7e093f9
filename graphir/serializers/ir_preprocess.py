"""An IR's ``<pre-process>`` element (IR v10 files of OpenVINO's own tests), applied as OpenVINO's IR
frontend applies it: the named input (``reference-layer-name``) is followed by a Subtract of the
per-channel means, a ``[C, 1, ...]`` Constant of the ``<mean value=...>`` numbers, or a ``[C, H, W...]``
Constant of mean images read from the .bin (``<mean offset=... size=...>``, ``mean-precision`` typed).
The inserted nodes are ordinary nodes (written back as layers when saved)."""
from __future__ import annotations

from typing import Any

import numpy as np

from graphir.errors import SerializationError
from graphir.model import Model
from graphir.node import Node
from graphir.ops.openvino.core import Constant, Parameter
from graphir.serializers.ir_constants import BinSource
from graphir.types import ElementType


def apply_pre_process(model: Model, element: Any, source: BinSource, where: str) -> None:
    """Insert the means of ``element`` (a ``<pre-process>``) after its input in ``model``."""
    from graphir.ops.openvino.elementwise import Subtract  # only for such files: imports stay light

    channels = [c for c in element if c.tag == "channel"]
    if not channels:
        return
    where = f"{where}: <pre-process>"
    params = [p for p in model.parameters if isinstance(p.op, Parameter)]
    name = element.get("reference-layer-name")
    matching = [p for p in params if p.name == name] if name else params[:1] if len(params) == 1 else []
    if not matching:
        raise SerializationError(f"{where}: reference-layer-name=\"{name}\" names no input "
                                 f"(inputs: {', '.join(p.name for p in params) or 'none'})")
    param = matching[0]
    param_op = param.op
    assert isinstance(param_op, Parameter)
    shape = param_op.shape
    if not shape.rank_is_static or len(shape) < 2 or not shape[1].is_static or shape[1].min != len(channels):
        raise SerializationError(f"{where}: {len(channels)} channels for input '{param.name}' of shape {shape}")
    dtype = param_op.element_type.numpy_dtype
    means = [c.find("mean") for c in channels]
    if any(m is None for m in means):
        raise SerializationError(f"{where}: every <channel> needs a <mean>")
    if all(m.get("value") is not None for m in means):
        values = np.array([float(m.get("value")) for m in means], dtype=dtype)
        mean = values.reshape((len(channels),) + (1,) * (len(shape) - 2))
    else:
        mean = _mean_images(means, shape, element.get("mean-precision", "FP32"), source, where).astype(dtype)
    users = model.consumers(param.output(0))
    constant = Node(Constant.from_array(mean), name=f"{param.name}/mean_values")
    subtract = Node(Subtract(), [param.output(0), constant.output(0)], name=f"{param.name}/mean_subtract")
    for user, index in users:
        user.set_input(index, subtract.output(0))
    model.add_node(constant)
    model.add_node(subtract)


def _mean_images(means: list[Any], shape: Any, precision: str, source: BinSource, where: str) -> np.ndarray:
    spatial = shape.dims[2:]
    if not all(d.is_static for d in spatial):
        raise SerializationError(f"{where}: mean images need static spatial dims, input shape {shape}")
    dims = tuple(d.min for d in spatial)
    et = ElementType.from_ir_precision(precision)
    images = []
    for k, m in enumerate(means):
        try:
            offset, size = int(m.get("offset")), int(m.get("size"))
        except (TypeError, ValueError):
            raise SerializationError(f"{where}: channel {k}: <mean> needs value, or offset and size") from None
        need = int(np.prod(dims)) * et.numpy_dtype.itemsize
        if size != need:
            raise SerializationError(f"{where}: channel {k}: size={size}, a {list(dims)} {et} image needs {need}")
        images.append(np.frombuffer(source.read(offset, size), dtype=et.numpy_dtype).reshape(dims))
    return np.stack(images)
