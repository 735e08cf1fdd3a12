/* cr-value-dict.h — what cr-value.c needs of a dict's storage, which
 * cr-value-dict.c owns. Private to the value files. */
#pragma once

#include "cr-value.h"

G_BEGIN_DECLS

/* An empty dict's storage (owned by the value it is put in). */
CrDict          *cr_dict_data_new          (void);
void             cr_dict_data_free         (CrDict *data);
/* What the storage is charged to the memory budget besides the value's struct. */
gsize            cr_dict_data_owned_bytes  (const CrDict *data);
CrObjectExtra  **cr_dict_data_extra_slot   (CrDict *data);

/* Charges (or, negative, gives back) nbytes to this thread's memory budget. */
void             cr_value_account          (gssize nbytes);

G_END_DECLS
