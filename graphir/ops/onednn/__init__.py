"""The oneDNN Graph dialect: the 88 public op kinds, version ``1``.

Modules: ``base`` (OneDNNOp, attribute kinds, declared output types, BackwardOp), ``eltwise``
(unary forward/backward), ``binary`` (auto_broadcast ops, BiasAdd, PReLU), ``conv``
(Convolution, ConvTranspose, pooling and their backward ops), ``norm`` (batch/layer/group/RMS norm,
softmax), ``movement`` (Concat, StaticReshape, StaticTranspose, Reorder, TypeCast, GenIndex,
Interpolate, End, Wildcard), ``compute`` (MatMul, reductions, quantization, Dropout) and
``select`` (Select). Files: :mod:`graphir.serializers.onednn_json`; conversions:
:mod:`graphir.convert.openvino_onednn`.
"""
