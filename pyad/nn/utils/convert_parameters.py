"""``torch.nn.utils.convert_parameters``: parameters to one vector and back (defined in
``pyad.nn.utils``), importable under torch's path."""
from pyad.nn.utils import parameters_to_vector, vector_to_parameters

__all__ = ["parameters_to_vector", "vector_to_parameters"]
