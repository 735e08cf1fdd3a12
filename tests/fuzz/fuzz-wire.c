/* fuzz-wire.c — libFuzzer target for the run record's wire reader
 * (cr_run_record_from_wire), which reads what another process sent.
 *
 * Random bytes rarely get past the header, so the input is mostly an edit
 * list applied to a real message, the record of a script with every kind
 * of item (made once, at start-up): each 5 bytes set one byte, or cut the
 * message short with its header's size made to fit. An input that starts
 * with the wire magic is read as it is instead. Whatever the reader
 * returns is walked as the window would: every snapshot's text, the JSON.
 * A refusal is no finding; a crash, a leak or a read past the end is. */
#include "cr-fuzz.h"

#include <glib.h>
#include <string.h>

#include "cr-interp.h"
#include "cr-run-record-json.h"
#include "cr-run-record-wire.h"

static const char *script =
  "import torch\n"
  "import torch.nn as nn\n"
  "class Twice(torch.autograd.Function):\n"
  "    @staticmethod\n"
  "    def forward(ctx, x):\n"
  "        return x * 2\n"
  "    @staticmethod\n"
  "    def backward(ctx, g):\n"
  "        return g * 2\n"
  "torch.manual_seed(0)\n"
  "lin = nn.Linear(3, 2)\n"
  "x = torch.tensor([[1., 2., 3.], [4., 5., 6.]], requires_grad=True)\n"
  "b = torch.tensor([1., 2., 3.], requires_grad=True)\n"
  "for i in range(2):\n"
  "    y = x * b\n"
  "with torch.no_grad():\n"
  "    z = y * 2\n"
  "y.register_hook(lambda g: g * 10)\n"
  "y.retain_grad()\n"
  "s = Twice.apply(lin(y)).sum() + (x * b).sum()\n"
  "s.backward()\n"
  "h = b.exp()\n"
  "t = (h * 3).sum()\n"
  "h.add_(1)\n"
  "t.backward()\n";

static GBytes *message;   /* the script's record on the wire */

static void
discard_output (const char *text,
                gboolean    is_stderr,
                gpointer    user_data)
{
}

int
LLVMFuzzerInitialize (int    *argc,
                      char ***argv)
{
  cr_fuzz_init ();
  CrAstModule *module = cr_parse (script, -1, "wire.py", NULL, NULL);
  g_assert (module != NULL);
  CrInterpOptions options = { 0 };
  options.output = discard_output;
  options.record_backward = TRUE;
  CrInterp *interp = cr_interp_new (&options);
  CrScriptError *error = NULL;
  cr_interp_run (interp, module, &error);
  cr_script_error_free (error);
  CrRunRecord *record = cr_interp_get_run_record (interp);
  g_assert (record != NULL);
  message = cr_run_record_to_wire (record);
  cr_run_record_unref (record);
  cr_interp_free (interp);
  cr_ast_module_free (module);
  return 0;
}

static void
walk (CrRunRecord *record)
{
  for (guint i = 0; i < record->tensors->len; i++)
    {
      const CrRecordTensor *t = g_ptr_array_index (record->tensors, i);
      cr_tensor_snapshot_get_text (t->value);
      g_free (cr_tensor_snapshot_format (t->value, NULL));
    }
  g_free (cr_run_record_to_json (record, NULL));
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  if (!message)
    LLVMFuzzerInitialize (NULL, NULL);
  gsize len;
  const guint8 *original = g_bytes_get_data (message, &len);
  guint8 *bytes;
  if (size >= 8 && memcmp (data, original, 8) == 0)
    {
      bytes = g_memdup2 (data, size);
      len = size;
    }
  else
    {
      bytes = g_memdup2 (original, len);
      for (size_t at = 0; at + 5 <= size; at += 5)
        {
          guint32 offset;
          memcpy (&offset, data + at, 4);
          if (offset & 0x80000000u)
            {
              /* Cut short, the header's total (at 16) made to fit. */
              gsize cut = (offset & 0x7fffffffu) % (len + 1);
              if (cut >= 24)
                {
                  guint64 total = cut;
                  memcpy (bytes + 16, &total, 8);
                }
              len = cut;
            }
          else if (len > 0)
            bytes[offset % len] = data[at + 4];
        }
    }
  /* The exact size, so that a read past len is one ASan sees. */
  guint8 *exact = g_memdup2 (bytes, len);
  g_free (bytes);
  gsize total = 0;
  GError *error = NULL;
  if (!cr_run_record_wire_size (exact, len, &total, &error))
    g_clear_error (&error);
  CrRunRecord *record = cr_run_record_from_wire (exact, len, &error);
  g_assert ((record == NULL) == (error != NULL));
  g_clear_error (&error);
  if (record)
    {
      walk (record);
      cr_run_record_unref (record);
    }
  g_free (exact);
  return 0;
}
