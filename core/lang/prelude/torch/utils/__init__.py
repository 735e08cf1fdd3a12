# torch.utils: only torch.utils.data so far.
from torch.utils import data
