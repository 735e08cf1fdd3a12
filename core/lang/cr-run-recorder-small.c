/* cr-run-recorder-small.c — the small tensors ops made or read, until the
 * run recorder records the ops (cr-run-recorder-small.h).
 *
 * A ring, since most ops are recorded within the statement that made them
 * and the rest never are (a graph the script dropped): a new entry pushes
 * out the oldest, so what the watch holds is bounded whatever the run
 * does. A hash table finds an entry's slot by its node and edge. */
#include "cr-run-recorder-small.h"

#include "cr-storage.h"

/* Entries kept at once: an LSTM over a sequence makes a few thousand small
 * results in one call before the script sees its output. */
#define RING_SIZE 8192

/* An input's entry: its edge number with this bit set (an output's has it
 * clear). */
#define INPUT_BIT 0x80000000u

typedef struct {
  CrNodeEnd key;         /* first: a Slot* is its key's address */
  guint32   version;     /* the tensor's when the op made or read it */
  gboolean  copied;      /* values copied then (a view of a big tensor): no version to check */
  CrTensor *tensor;      /* owned; NULL: a free slot */
} Slot;

struct _CrSmallTensors {
  Slot        slots[RING_SIZE];
  guint       next;      /* the slot the next note takes */
  GHashTable *where;     /* Slot* (by its key) -> itself */
};

guint
cr_node_end_hash (gconstpointer key)
{
  const CrNodeEnd *k = key;
  return (guint) (k->sequence_nr * 31u) ^ (guint) (k->sequence_nr >> 32) ^ (k->nr * 2654435761u);
}

gboolean
cr_node_end_equal (gconstpointer a,
                   gconstpointer b)
{
  const CrNodeEnd *x = a, *y = b;
  return x->sequence_nr == y->sequence_nr && x->nr == y->nr;
}

CrSmallTensors *
cr_small_tensors_new (void)
{
  CrSmallTensors *self = g_new0 (CrSmallTensors, 1);
  self->where = g_hash_table_new (cr_node_end_hash, cr_node_end_equal);
  return self;
}

static void
slot_clear (CrSmallTensors *self,
            Slot           *s)
{
  if (!s->tensor)
    return;
  g_hash_table_remove (self->where, s);
  g_clear_pointer (&s->tensor, cr_tensor_unref);
}

void
cr_small_tensors_clear (CrSmallTensors *self)
{
  if (!self)
    return;
  for (guint i = 0; i < RING_SIZE; i++)
    slot_clear (self, &self->slots[i]);
  self->next = 0;
}

void
cr_small_tensors_free (CrSmallTensors *self)
{
  if (!self)
    return;
  cr_small_tensors_clear (self);
  g_hash_table_unref (self->where);
  g_free (self);
}

/* Keeps kept (taking the ref) under (sequence_nr, edge), replacing what the
 * same key held (an in-place op rebasing a tensor onto the node it has). */
static void
keep (CrSmallTensors *self,
      guint64         sequence_nr,
      guint32         edge,
      CrTensor       *kept,
      guint32         version,
      gboolean        copied)
{
  CrNodeEnd key = { sequence_nr, edge };
  Slot *old = g_hash_table_lookup (self->where, &key);
  if (old)
    slot_clear (self, old);
  Slot *s = &self->slots[self->next];
  self->next = (self->next + 1) % RING_SIZE;
  slot_clear (self, s);
  s->key = key;
  s->tensor = kept;
  s->version = version;
  s->copied = copied;
  g_hash_table_add (self->where, s);
}

static CrTensor *
take (CrSmallTensors *self,
      guint64         sequence_nr,
      guint32         edge)
{
  if (!self)
    return NULL;
  CrNodeEnd key = { sequence_nr, edge };
  Slot *s = g_hash_table_lookup (self->where, &key);
  if (!s)
    return NULL;
  CrTensor *t = s->copied || cr_tensor_version (s->tensor) == s->version
                ? cr_tensor_ref (s->tensor) : NULL;
  slot_clear (self, s);
  return t;
}

static gboolean
has_small_storage (const CrTensor *t)
{
  return t->storage->nbytes <= CR_SMALL_TENSORS_MAX_NUMEL * sizeof (double);
}

void
cr_small_tensors_note_output (CrSmallTensors *self,
                              CrTensor       *out,
                              guint64         sequence_nr,
                              guint32         output_nr)
{
  if (!self || !out || out->numel > CR_SMALL_TENSORS_MAX_NUMEL)
    return;
  /* An alias of a small view of a big tensor (unsafe_split's pieces of an
   * LSTM's gates) would keep the big one alive: a view's values are there
   * when it is made, so they are copied now. */
  gboolean copy = !has_small_storage (out);
  CrTensor *kept = copy ? cr_tensor_copy (out, NULL) : cr_tensor_alias (out);
  if (kept)
    keep (self, sequence_nr, output_nr, kept, cr_tensor_version (out), copy);
}

CrTensor *
cr_small_tensors_take_output (CrSmallTensors *self,
                              guint64         sequence_nr,
                              guint32         output_nr)
{
  return take (self, sequence_nr, output_nr);
}

void
cr_small_tensors_note_inputs (CrSmallTensors  *self,
                              guint64          sequence_nr,
                              CrTensor *const *inputs,
                              guint            n_inputs)
{
  if (!self)
    return;
  for (guint i = 0; i < n_inputs; i++)
    {
      CrTensor *t = inputs[i];
      /* One that views a big tensor is left out: it would keep that alive. */
      if (t && !t->requires_grad && !t->is_wrapped_number
          && t->numel <= CR_SMALL_TENSORS_MAX_NUMEL && has_small_storage (t))
        keep (self, sequence_nr, i | INPUT_BIT, cr_tensor_ref (t), cr_tensor_version (t), FALSE);
    }
}

CrTensor *
cr_small_tensors_take_input (CrSmallTensors *self,
                             guint64         sequence_nr,
                             guint32         input_nr)
{
  return take (self, sequence_nr, input_nr | INPUT_BIT);
}
