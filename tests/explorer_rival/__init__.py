"""A stand-in for another Model Explorer extension that claims ``.onnx`` (as ``model_explorer_onnx``
does), loaded after graphir's in the browser test: the page must open .onnx files with graphir's."""
