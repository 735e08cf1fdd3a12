# torch.nn: Module, its layers and losses, Parameter, init and functional.
from torch.nn.parameter import Parameter, UninitializedParameter
from torch.nn.modules import *
from torch.nn import init
from torch.nn import functional
from torch.nn import utils

# What torch.nn has in PyTorch 1.13 that Chainrule does not have yet: asking
# for one says so, rather than reading like a typo in the script.
_NOT_YET = [
    'AdaptiveAvgPool1d', 'AdaptiveAvgPool3d', 'AdaptiveLogSoftmaxWithLoss',
    'AdaptiveMaxPool1d', 'AdaptiveMaxPool2d', 'AdaptiveMaxPool3d', 'AlphaDropout', 'AvgPool1d',
    'AvgPool3d', 'BatchNorm3d', 'CELU', 'CTCLoss', 'ChannelShuffle', 'ConstantPad1d',
    'ConstantPad2d', 'ConstantPad3d', 'Container', 'Conv3d', 'ConvTranspose1d',
    'ConvTranspose2d', 'ConvTranspose3d', 'CosineEmbeddingLoss', 'CosineSimilarity',
    'CrossMapLRN2d', 'DataParallel', 'Dropout1d', 'Dropout2d', 'Dropout3d', 'EmbeddingBag',
    'FeatureAlphaDropout', 'Fold', 'FractionalMaxPool2d', 'FractionalMaxPool3d', 'GLU', 'GRU',
    'GRUCell', 'GaussianNLLLoss', 'GroupNorm', 'Hardshrink', 'Hardsigmoid', 'Hardswish',
    'HingeEmbeddingLoss', 'InstanceNorm1d', 'InstanceNorm2d', 'InstanceNorm3d', 'KLDivLoss',
    'LPPool1d', 'LPPool2d', 'LSTM', 'LSTMCell', 'LazyBatchNorm1d', 'LazyBatchNorm2d',
    'LazyBatchNorm3d', 'LazyConv1d', 'LazyConv2d', 'LazyConv3d', 'LazyConvTranspose1d',
    'LazyConvTranspose2d', 'LazyConvTranspose3d', 'LazyInstanceNorm1d', 'LazyInstanceNorm2d',
    'LazyInstanceNorm3d', 'LazyLinear', 'LocalResponseNorm', 'MarginRankingLoss', 'MaxPool1d',
    'MaxPool3d', 'MaxUnpool1d', 'MaxUnpool2d', 'MaxUnpool3d', 'MultiLabelMarginLoss',
    'MultiLabelSoftMarginLoss', 'MultiMarginLoss', 'MultiheadAttention', 'NLLLoss2d', 'PReLU',
    'PairwiseDistance', 'PixelShuffle', 'PixelUnshuffle',
    'PoissonNLLLoss', 'RNN', 'RNNBase', 'RNNCell', 'RNNCellBase', 'RReLU', 'ReflectionPad1d',
    'ReflectionPad2d', 'ReflectionPad3d', 'ReplicationPad1d', 'ReplicationPad2d',
    'ReplicationPad3d', 'SELU', 'Softmax2d', 'SoftMarginLoss', 'Softshrink', 'SyncBatchNorm',
    'Threshold', 'Transformer', 'TransformerDecoder', 'TransformerDecoderLayer',
    'TransformerEncoder', 'TransformerEncoderLayer', 'TripletMarginLoss',
    'TripletMarginWithDistanceLoss', 'Unfold', 'UninitializedBuffer', 'Upsample',
    'UpsamplingBilinear2d', 'UpsamplingNearest2d', 'ZeroPad2d', 'common_types',
    'factory_kwargs', 'grad', 'intrinsic', 'parallel', 'qat', 'quantizable', 'quantized',
]


def __getattr__(name):
    if name in _NOT_YET:
        raise NotImplementedError("torch.nn.{} is not supported by Chainrule yet".format(name))
    raise AttributeError("module 'torch.nn' has no attribute '{}'".format(name))
