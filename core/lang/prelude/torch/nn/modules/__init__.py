# torch.nn.modules: every layer, loss and container class.
from torch.nn.modules.module import Module
from torch.nn.modules.linear import Identity, Linear, Bilinear
from torch.nn.modules.activation import ReLU, ReLU6, Hardtanh, LeakyReLU, PReLU, Tanh, Sigmoid, \
    LogSigmoid, Softsign, Tanhshrink, GELU, SiLU, Mish, Hardsigmoid, Hardswish, ELU, Softplus, \
    Softmax, LogSoftmax, Softmin, CELU, SELU, Threshold, Hardshrink, Softshrink, GLU
from torch.nn.modules.loss import L1Loss, MSELoss, SmoothL1Loss, HuberLoss, NLLLoss, \
    CrossEntropyLoss, BCELoss, BCEWithLogitsLoss, KLDivLoss, MarginRankingLoss, TripletMarginLoss
from torch.nn.modules.container import Sequential, ModuleList, ModuleDict, ParameterList, \
    ParameterDict
from torch.nn.modules.flatten import Flatten, Unflatten
from torch.nn.modules.conv import Conv1d, Conv2d, ConvTranspose1d, ConvTranspose2d
from torch.nn.modules.rnn import RNNBase, RNN, LSTM, GRU, RNNCellBase, RNNCell, LSTMCell, \
    GRUCell
from torch.nn.modules.pooling import MaxPool2d, AvgPool2d, AdaptiveAvgPool2d
from torch.nn.modules.dropout import Dropout, Dropout1d, Dropout2d
from torch.nn.modules.sparse import Embedding
from torch.nn.modules.normalization import LayerNorm, GroupNorm
from torch.nn.modules.instancenorm import InstanceNorm1d, InstanceNorm2d
from torch.nn.modules.padding import ConstantPad1d, ConstantPad2d, ConstantPad3d, ZeroPad2d, \
    ReflectionPad1d, ReflectionPad2d, ReplicationPad1d, ReplicationPad2d
from torch.nn.modules.distance import CosineSimilarity, PairwiseDistance
from torch.nn.modules.attention import MultiheadAttention
from torch.nn.modules.transformer import TransformerEncoderLayer, TransformerEncoder, \
    TransformerDecoderLayer, TransformerDecoder, Transformer
from torch.nn.modules.batchnorm import BatchNorm1d, BatchNorm2d
from torch.nn.modules.upsampling import Upsample, UpsamplingNearest2d, UpsamplingBilinear2d

__all__ = [
    'Module', 'Identity', 'Linear', 'Bilinear', 'ReLU', 'ReLU6', 'Hardtanh', 'LeakyReLU', 'PReLU',
    'Tanh', 'Sigmoid', 'LogSigmoid', 'Softsign', 'Tanhshrink', 'GELU', 'SiLU', 'Mish', 'Hardsigmoid',
    'Hardswish', 'ELU', 'CELU', 'SELU', 'Threshold', 'Hardshrink', 'Softshrink', 'GLU',
    'Softplus', 'Softmax', 'LogSoftmax', 'Softmin', 'L1Loss', 'MSELoss', 'SmoothL1Loss',
    'HuberLoss', 'NLLLoss', 'CrossEntropyLoss', 'BCELoss', 'BCEWithLogitsLoss', 'Sequential',
    'ModuleList', 'ModuleDict', 'ParameterList', 'ParameterDict', 'Flatten', 'Unflatten', 'Conv1d', 'Conv2d', 'ConvTranspose1d', 'ConvTranspose2d', 'RNNBase', 'RNN', 'LSTM', 'GRU', 'RNNCellBase', 'RNNCell', 'LSTMCell', 'GRUCell', 'MaxPool2d',
    'AvgPool2d', 'AdaptiveAvgPool2d', 'Dropout', 'Embedding', 'LayerNorm', 'BatchNorm1d',
    'BatchNorm2d', 'Dropout1d', 'Dropout2d', 'GroupNorm', 'InstanceNorm1d', 'InstanceNorm2d',
    'ConstantPad1d', 'ConstantPad2d', 'ConstantPad3d', 'ZeroPad2d', 'ReflectionPad1d',
    'ReflectionPad2d', 'ReplicationPad1d', 'ReplicationPad2d', 'CosineSimilarity',
    'PairwiseDistance', 'MultiheadAttention', 'TransformerEncoderLayer', 'TransformerEncoder', 'TransformerDecoderLayer', 'TransformerDecoder', 'Transformer', 'KLDivLoss', 'MarginRankingLoss', 'TripletMarginLoss',
    'Upsample', 'UpsamplingNearest2d', 'UpsamplingBilinear2d',
]
