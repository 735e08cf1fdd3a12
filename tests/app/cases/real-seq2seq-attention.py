# cuda: cpu-only, its lengths are made on the default device, which PyTorch refuses for packing
# "NLP From Scratch: Translation with a Sequence to Sequence Network and
# Attention" (PyTorch tutorials), on a toy task: reverse a sequence of
# digits. A GRU encoder over packed, padded batches, a GRU decoder with
# Bahdanau attention, teacher forcing, NLLLoss, then greedy decoding.
import random
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import optim
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence, pad_sequence

SOS_token = 0
EOS_token = 1
PAD_token = 2
n_tokens = 8
MAX_LENGTH = 6

random.seed(0)
torch.manual_seed(0)
pairs = []
for _ in range(12):
    n = random.randint(2, 4)
    seq = [random.randint(3, n_tokens - 1) for _ in range(n)]
    pairs.append((seq + [EOS_token], list(reversed(seq)) + [EOS_token]))
print(pairs[:3])


class EncoderRNN(nn.Module):
    def __init__(self, input_size, hidden_size, dropout_p=0.1):
        super(EncoderRNN, self).__init__()
        self.hidden_size = hidden_size
        self.embedding = nn.Embedding(input_size, hidden_size, padding_idx=PAD_token)
        self.gru = nn.GRU(hidden_size, hidden_size, batch_first=True)
        self.dropout = nn.Dropout(dropout_p)

    def forward(self, input, lengths):
        embedded = self.dropout(self.embedding(input))
        packed = pack_padded_sequence(embedded, lengths, batch_first=True, enforce_sorted=False)
        output, hidden = self.gru(packed)
        output, _ = pad_packed_sequence(output, batch_first=True, total_length=input.size(1))
        return output, hidden


class BahdanauAttention(nn.Module):
    def __init__(self, hidden_size):
        super(BahdanauAttention, self).__init__()
        self.Wa = nn.Linear(hidden_size, hidden_size)
        self.Ua = nn.Linear(hidden_size, hidden_size)
        self.Va = nn.Linear(hidden_size, 1)

    def forward(self, query, keys, mask):
        scores = self.Va(torch.tanh(self.Wa(query) + self.Ua(keys)))
        scores = scores.squeeze(2).unsqueeze(1)
        scores = scores.masked_fill(mask.unsqueeze(1), float('-inf'))
        weights = F.softmax(scores, dim=-1)
        context = torch.bmm(weights, keys)
        return context, weights


class AttnDecoderRNN(nn.Module):
    def __init__(self, hidden_size, output_size):
        super(AttnDecoderRNN, self).__init__()
        self.embedding = nn.Embedding(output_size, hidden_size)
        self.attention = BahdanauAttention(hidden_size)
        self.gru = nn.GRU(2 * hidden_size, hidden_size, batch_first=True)
        self.out = nn.Linear(hidden_size, output_size)

    def forward(self, encoder_outputs, encoder_hidden, mask, target_tensor=None):
        batch_size = encoder_outputs.size(0)
        decoder_input = torch.empty(batch_size, 1, dtype=torch.long).fill_(SOS_token)
        decoder_hidden = encoder_hidden
        decoder_outputs = []
        attentions = []
        steps = target_tensor.size(1) if target_tensor is not None else MAX_LENGTH
        for i in range(steps):
            decoder_output, decoder_hidden, attn_weights = self.forward_step(
                decoder_input, decoder_hidden, encoder_outputs, mask)
            decoder_outputs.append(decoder_output)
            attentions.append(attn_weights)
            if target_tensor is not None:
                decoder_input = target_tensor[:, i].unsqueeze(1)  # teacher forcing
            else:
                _, topi = decoder_output.topk(1)
                decoder_input = topi.squeeze(-1).detach()
        decoder_outputs = torch.cat(decoder_outputs, dim=1)
        decoder_outputs = F.log_softmax(decoder_outputs, dim=-1)
        attentions = torch.cat(attentions, dim=1)
        return decoder_outputs, decoder_hidden, attentions

    def forward_step(self, input, hidden, encoder_outputs, mask):
        embedded = self.embedding(input)
        query = hidden.permute(1, 0, 2)
        context, attn_weights = self.attention(query, encoder_outputs, mask)
        input_gru = torch.cat((embedded, context), dim=2)
        output, hidden = self.gru(input_gru, hidden)
        output = self.out(output)
        return output, hidden, attn_weights


def batch(pairs):
    src = [torch.tensor(s) for s, _ in pairs]
    tgt = [torch.tensor(t) for _, t in pairs]
    lengths = torch.tensor([len(s) for s in src])
    src = pad_sequence(src, batch_first=True, padding_value=PAD_token)
    tgt = pad_sequence(tgt, batch_first=True, padding_value=PAD_token)
    return src, lengths, tgt


hidden_size = 16
encoder = EncoderRNN(n_tokens, hidden_size)
decoder = AttnDecoderRNN(hidden_size, n_tokens)
encoder_optimizer = optim.Adam(encoder.parameters(), lr=0.01)
decoder_optimizer = optim.Adam(decoder.parameters(), lr=0.01)
criterion = nn.NLLLoss(ignore_index=PAD_token)

for epoch in range(1, 31):
    total_loss = 0
    for start in range(0, len(pairs), 4):
        input_tensor, lengths, target_tensor = batch(pairs[start:start + 4])
        mask = input_tensor == PAD_token
        encoder_optimizer.zero_grad()
        decoder_optimizer.zero_grad()
        encoder_outputs, encoder_hidden = encoder(input_tensor, lengths)
        decoder_outputs, _, _ = decoder(encoder_outputs, encoder_hidden, mask, target_tensor)
        loss = criterion(decoder_outputs.view(-1, decoder_outputs.size(-1)),
                         target_tensor.view(-1))
        loss.backward()
        nn.utils.clip_grad_norm_(encoder.parameters(), 1.0)
        encoder_optimizer.step()
        decoder_optimizer.step()
        total_loss += loss.item()
    if epoch % 10 == 0:
        print('epoch %d  loss %.4f' % (epoch, total_loss / 3))

print(encoder.gru.weight_hh_l0.grad.norm(), decoder.attention.Va.weight.grad)

encoder.eval()
decoder.eval()
with torch.no_grad():
    input_tensor, lengths, target_tensor = batch(pairs[:3])
    mask = input_tensor == PAD_token
    encoder_outputs, encoder_hidden = encoder(input_tensor, lengths)
    decoder_outputs, decoder_hidden, attentions = decoder(encoder_outputs, encoder_hidden, mask)
    _, topi = decoder_outputs.topk(1)
    decoded_ids = topi.squeeze()
    for ids, (src, tgt) in zip(decoded_ids, pairs[:3]):
        words = []
        for idx in ids:
            if idx.item() == EOS_token:
                words.append('<EOS>')
                break
            words.append(str(idx.item()))
        print(src, '->', ' '.join(words), '| expected', tgt)
    print(attentions[0, :3])
