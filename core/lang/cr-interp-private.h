/* cr-interp-private.h — what the interpreter's files share: frames, compiled
 * scopes (CrCode), closures, iteration, and the helpers that builtins, values
 * and operators call. Not a public contract: the torch layer uses cr-value.h,
 * cr-interp.h and cr-torch.h only. */
#pragma once

#include "cr-interp-base.h"
#include "cr-native.h"
#include "cr-object.h"
#include "cr-stack-guard.h"
#include "cr-type-slots.h"
#include "cr-binding.h"
#include "cr-interp-cells.h"

G_BEGIN_DECLS

/* ---- name resolution ----------------------------------------------------
 * The resolver (cr-resolve.c) gives each CR_AST_NAME node, in its `cache`
 * field, where the name lives: a kind in the top 4 bits and an index. */
typedef enum {
  CR_NAME_UNRESOLVED = 0,
  CR_NAME_LOCAL,          /* frame->locals[i] */
  CR_NAME_CELL,           /* frame->cells[i]->value (captured by an inner def) */
  CR_NAME_FREE,           /* frame->closure[i]->value (from an enclosing def) */
  CR_NAME_GLOBAL,         /* interp->globals[i], then the builtins */
  CR_NAME_CLASS_GLOBAL,   /* class body: the class namespace, then global i */
  CR_NAME_CLASS_FREE,     /* class body: the class namespace, then closure i */
} CrNameKind;

#define CR_NAME_KIND(enc)   ((CrNameKind) ((enc) >> 28))
#define CR_NAME_INDEX(enc)  ((enc) & 0x0fffffffu)
#define CR_NAME_ENCODE(kind, index) ((((guint) (kind)) << 28) | ((guint) (index)))

typedef struct _CrCell {
  gint     ref_count;
  CrValue *value;   /* owned, NULL: unbound */
} CrCell;

CrCell   *cr_cell_new   (void);
CrCell   *cr_cell_ref   (CrCell *cell);
void      cr_cell_unref (CrCell *cell);

/* Where a free variable of a scope comes from in the scope that creates it. */
typedef struct {
  gboolean from_cell;   /* TRUE: creator's cells[index]; FALSE: creator's closure[index] */
  guint    index;
} CrFreeSource;

/* A compiled scope: a def, lambda, class body or the module. */
typedef struct _CrCode {
  const CrAstNode   *node;        /* FUNCTIONDEF, LAMBDA, CLASSDEF; NULL: module */
  const char        *name;        /* "f", "<lambda>", "A", "<module>" */
  char              *qualname;    /* "A.f", "f.<locals>.g" */
  gboolean           is_class;
  guint              n_params;
  const CrAstParam  *params;
  guint              n_positional;  /* CR_PARAM_NORMAL params (they come first) */
  int                varargs;       /* param index or -1 */
  int                kwargs;        /* param index or -1 */
  guint              n_locals;      /* params are locals 0 .. n_params-1 */
  const char       **local_names;
  guint              n_cells;
  const char       **cell_names;
  int               *cell_param;    /* the param a cell starts from, or -1 */
  guint              n_free;
  const char       **free_names;
  CrFreeSource      *free_sources;
  guint              n_body;
  CrAstNode * const *body;
  gboolean           is_generator;  /* a def or lambda with a yield: a call makes a generator */
  gboolean           is_genexpr;    /* a generator expression (node: its LISTCOMP) */
} CrCode;

/* The resolved module: its code objects and its global names. */
typedef struct _CrProgram CrProgram;

CrProgram    *cr_program_new          (CrAstModule     *module,
                                       CrSpan          *error_span,
                                       GError         **error);
void          cr_program_free         (CrProgram       *program);
CrCode       *cr_program_module_code  (CrProgram       *program);
CrCode       *cr_program_code_for     (CrProgram       *program,
                                       const CrAstNode *node);
guint         cr_program_n_globals    (CrProgram       *program);
/* The global index of name, or -1. */
int           cr_program_global_lookup(CrProgram       *program,
                                       const char      *name);
const char   *cr_program_global_name  (CrProgram       *program,
                                       guint            index);

/* ---- functions ----------------------------------------------------------- */
/* A module's names and code: the script's own (CrInterp.main_scope) or a
 * prelude module's (cr-prelude.c). The interpreter's module, program and
 * globals fields are those of the scope whose code runs now; calling a
 * function of another scope switches them (cr_interp_scope_enter/_leave). */
typedef struct _CrScope {
  const char            *name;        /* "__main__", "torch.nn.modules.module" */
  CrAstModule           *module;      /* borrowed: filename and source */
  CrProgram             *program;     /* borrowed */
  struct _CrGlobalSlot  *globals;     /* owned by the scope's owner */
  guint                  n_globals;
  gboolean               is_prelude;  /* library code: its lines are never a graph
                                       * node's span, its names never a tensor's */
  CrValue               *namespace;   /* a prelude module's value (borrowed), which also
                                       * takes names its code never reads (`import *`) */
} CrScope;

struct _CrFunction {
  CrCode    *code;         /* borrowed from the program */
  const CrScope *scope;    /* the module that defined it (borrowed; lives as long as
                            * the interpreter); NULL: the current one */
  char      *qualname;     /* owned */
  CrValue  **defaults;     /* n_params entries, NULL where none (owned) */
  CrCell   **closure;      /* n_free entries (owned) */
  CrValue   *owner_class;  /* weak: the class whose body made it (super()) */
};

void      cr_function_free       (CrFunction *function);

/* ---- frames --------------------------------------------------------------- */
/* How many nested loops of one frame keep their iterations (deeper ones
 * count, unnamed). */
#define CR_FRAME_LOOP_PATH 4

typedef struct _CrFrame CrFrame;
struct _CrFrame {
  CrFrame          *back;       /* the caller */
  CrCode           *code;
  CrValue         **locals;
  CrCell          **cells;
  CrCell          **closure;
  GHashTable       *class_ns;   /* class body: the class's attrs */
  CrValue          *function;   /* the running def (borrowed), NULL for module/class */
  CrValue          *owner_class;/* class body: the class being made (borrowed) */
  const CrAstNode  *stmt;       /* the statement being run */
  CrValue          *retval;     /* owned, set by `return` */
  guint             loop_iteration;  /* 1-based iteration of the innermost loop running in
                                      * this frame; 0: none (the run record's "y₃") */
  guint             loop_depth;      /* the script's loops running in this frame */
  guint             loop_path[CR_FRAME_LOOP_PATH]; /* their iterations, outermost first
                                      * (of the first CR_FRAME_LOOP_PATH loops) */
};

typedef enum {
  CR_EXEC_OK,
  CR_EXEC_BREAK,
  CR_EXEC_CONTINUE,
  CR_EXEC_RETURN,
  CR_EXEC_ERROR,
} CrExecStatus;

typedef struct _CrGlobalSlot {
  CrValue   *value;    /* owned */
  CrValue   *builtin;  /* borrowed from the builtins table */
} CrGlobalSlot;

typedef struct {
  const char       *function;   /* "<module>", "f" */
  const CrAstNode  *stmt;
  const CrAstNode  *node;       /* the failing expression (carets), may be NULL */
  const CrScope    *scope;      /* the frame's module (file name, source lines) */
} CrTracebackEntry;


struct _CrInterp {
  CrInterpOptions   options;
  gpointer          binding_state;  /* cr_binding.state_new's (cr-binding.h) */

  CrAstModule      *module;     /* borrowed during a run */
  CrProgram        *program;
  CrGlobalSlot     *globals;
  guint             n_globals;
  /* Where the four above come from: the script's scope or a prelude module's
   * (cr-prelude.c). While prelude code runs, user_stmt is the script's
   * statement that called into it: ops and warnings are attributed to it. */
  CrScope           main_scope;
  const CrScope    *scope;
  gboolean          in_prelude;
  const CrAstNode  *user_stmt;
  GPtrArray        *prelude_scopes;   /* CrScope* of the prelude modules run (owned) */
  GHashTable       *builtins;   /* char* -> CrValue* (owned) */
  GHashTable       *modules;    /* dotted name -> CrValue* (owned) */
  GHashTable       *globals_view;
  CrFrame          *frame;      /* innermost */
  guint             depth;

  /* The error being raised: where it happened in each frame it crossed. */
  gboolean          err_located;
  const CrAstNode  *err_node;
  GArray           *traceback;  /* CrTracebackEntry, innermost first */
  GError           *traceback_owner;
  char             *exc_name;   /* a user exception class's name */
  GError           *exc_name_owner;
  CrValue          *exc_value;  /* the instance a raise statement raised */
  GError           *exc_value_owner;
  GPtrArray        *handling;   /* CrHandled*: the exceptions being handled (except
                                 * clauses running), innermost last (cr-interp-try.c) */

  GHashTable       *warned;

  /* Builtin types and the objects the interpreter makes itself. */
  GHashTable       *type_classes;   /* GINT (CrValueKind) -> CrValue* class (borrowed, in builtins) */
  const CrTypeSlots *tensor_slots;  /* what a CR_VALUE_TENSOR does (cr_binding's) */
  GHashTable       *method_tables;  /* GINT (CrValueKind) -> GHashTable name -> method definition */
  CrValue          *exc_classes[CR_EXC_COUNT];  /* borrowed */

  GHashTable       *live_gen_objects;  /* CrGenObject*: generators suspended on their
                                        * own stack, closed by cr_interp_free (cr-gen-object.c) */
  guint             next_handle_id;
  GPtrArray        *at_free;    /* CrAtFree*: run by cr_interp_free, last first */

  /* Whether the binding is told of each value computed and name bound
   * (CrBinding.note_value): for the labels of graph nodes (trace/record). */
  gboolean          labels_enabled;

  /* The uncaught error ending the run, while the binding's run_end runs
   * (the run record keeps it); NULL otherwise. */
  const CrScriptError *run_error;

  /* A run as notebook cells (cr-interp-cells.c): borrowed; NULL: a script. */
  const CrScriptCell *cells;
  guint             n_cells;
  guint             running_cell;
  guint             n_failed_cells;

  /* Statements started in this run, the prelude's too: where `chainrule
   * check` nudges a leaf (cr-torch-grad-probe.c). */
  guint64           statements_run;
};

/* ---- notebook cells (cr-interp-cells.c) ------------------------------------ */
/* Puts display() in the builtins, as Jupyter has it. */
void          cr_interp_cells_install (CrInterp       *self);
/* Runs code's statements as self->cells: CR_EXEC_ERROR only when the run
 * is stopped (error set); a cell's error is reported as it happens and the
 * first of them left in *first_error (reported, owned by the caller). */
CrExecStatus  cr_exec_cells          (CrInterp       *self,
                                      CrFrame        *frame,
                                      struct _CrCode *code,
                                      CrScriptError **first_error,
                                      GError        **error);
/* error, raised out of frame's statement, as the CrScriptError whose
 * traceback the runner prints (cr-interp-traceback.c). */
CrScriptError *cr_interp_script_error (CrInterp      *self,
                                       CrFrame       *frame,
                                       GError        *error);
/* error, from compiling module, at span, as Python prints a SyntaxError:
 * no traceback, the line and a caret. */
CrScriptError *cr_interp_syntax_error (CrInterp      *self,
                                       CrAstModule   *module,
                                       const CrSpan  *span,
                                       GError        *error);

/* The 1-based iteration of the innermost loop running, this frame's or, in
 * a function called from a loop, its caller's; 0: none. */
guint     cr_interp_loop_iteration (CrInterp  *self);
/* The iterations of every loop of the script's running now, in every
 * frame, outermost first, into path (at most max, the innermost ones);
 * returns how many (0: none). The run record's "y₂,₃". */
guint     cr_interp_loop_path      (CrInterp  *self,
                                    guint     *path,
                                    guint      max);

/* ---- errors ---------------------------------------------------------------- */
void      cr_interp_set_error     (GError     **error,
                                   CrException  code,
                                   const char  *format,
                                   ...) G_GNUC_PRINTF (3, 4);

/* Python 3.11's "Did you mean" for a NameError / AttributeError, or NULL
 * (cr-suggest.c; borrowed, valid until the names change). */
const char *cr_suggest_name      (CrInterp    *self,
                                  CrFrame     *frame,
                                  const char  *name);
const char *cr_suggest_attribute (CrInterp    *self,
                                  CrValue     *obj,
                                  const char  *name);
/* dir(obj): the names, sorted and each once (borrowed strings, valid while
 * obj and its class are unchanged; the array is the caller's). */
GPtrArray  *cr_interp_dir        (CrInterp    *self,
                                  CrValue     *obj);
/* The closest of n sorted candidates to name, or NULL. */
const char *cr_suggest_among     (const char        *name,
                                  const char *const *candidates,
                                  guint              n);

/* ---- evaluation (cr-interp-expr.c, cr-interp-stmt.c) ---------------------- */
CrValue      *cr_eval            (CrInterp        *self,
                                  CrFrame         *frame,
                                  CrAstNode       *node,
                                  GError         **error);
/* try statements and a bare raise (cr-interp-try.c). */
CrExecStatus  cr_exec_try        (CrInterp        *self,
                                  CrFrame         *frame,
                                  CrAstNode       *stmt,
                                  GError         **error);
CrExecStatus  cr_exec_reraise    (CrInterp        *self,
                                  CrFrame         *frame,
                                  GError         **error);
/* Drops what the interpreter remembers about a raised error (the handled-
 * exception stack included); for cr_interp_free. */
void          cr_interp_try_clear (CrInterp       *self);
CrExecStatus  cr_exec_block      (CrInterp        *self,
                                  CrFrame         *frame,
                                  CrAstNode *const *stmts,
                                  guint            n_stmts,
                                  GError         **error);
/* A subscript's index: slices and tuples of them become values. */
CrValue      *cr_eval_index      (CrInterp        *self,
                                  CrFrame         *frame,
                                  CrAstNode       *node,
                                  GError         **error);
/* A subscript node's object and index (new refs), in Python's order; FALSE,
 * with both NULL, on error. */
gboolean      cr_eval_subscript  (CrInterp        *self,
                                  CrFrame         *frame,
                                  CrAstNode       *node,
                                  CrValue        **out_obj,
                                  CrValue        **out_index,
                                  GError         **error);
gboolean      cr_delete_name     (CrInterp        *self,
                                  CrFrame         *frame,
                                  CrAstNode       *name,
                                  GError         **error);
gboolean      cr_store_target    (CrInterp        *self,
                                  CrFrame         *frame,
                                  CrAstNode       *target,
                                  CrValue         *value,
                                  GError         **error);
/* The same without naming a tensor after its variable (a comprehension's). */
gboolean      cr_store_target_unnamed (CrInterp   *self,
                                       CrFrame    *frame,
                                       CrAstNode  *target,
                                       CrValue    *value,
                                       GError    **error);
/* Binds (value NULL: unbinds) a name no CR_AST_NAME node carries. */
void          cr_store_name      (CrInterp        *self,
                                  CrFrame         *frame,
                                  const char      *name,
                                  CrValue         *value);
/* A def or lambda value for node, closing over frame. */
CrValue      *cr_make_function   (CrInterp        *self,
                                  CrFrame         *frame,
                                  CrAstNode       *node,
                                  GError         **error);
/* Closure cells for code's free variables, taken from frame (the creator). */
CrCell      **cr_build_closure   (CrFrame         *frame,
                                  CrCode          *code);

/* ---- objects (cr-interp-attr.c, -call.c, -import.c, -traceback.c) -------- */
CrValue  *cr_interp_getattr      (CrInterp        *self,
                                  CrValue         *obj,
                                  const char      *name,
                                  GError         **error);
/* NULL without error when absent (no AttributeError). */
CrValue  *cr_interp_getattr_opt  (CrInterp        *self,
                                  CrValue         *obj,
                                  const char      *name,
                                  GError         **error);
gboolean  cr_interp_setattr      (CrInterp        *self,
                                  CrValue         *obj,
                                  const char      *name,
                                  CrValue         *value,
                                  GError         **error);
gboolean  cr_interp_delattr      (CrInterp        *self,
                                  CrValue         *obj,
                                  const char      *name,
                                  GError         **error);
CrValue  *cr_interp_getitem      (CrInterp        *self,
                                  CrValue         *obj,
                                  CrValue         *index,
                                  GError         **error);
gboolean  cr_interp_setitem      (CrInterp        *self,
                                  CrValue         *obj,
                                  CrValue         *index,
                                  CrValue         *value,
                                  GError         **error);
gboolean  cr_interp_delitem      (CrInterp        *self,
                                  CrValue         *obj,
                                  CrValue         *index,
                                  GError         **error);
/* Look name up on a class and its bases (borrowed, NULL when absent). */
CrValue  *cr_class_lookup        (CrValue         *cls,
                                  const char      *name);
gboolean  cr_class_is_subclass   (CrValue         *cls,
                                  CrValue         *base);
/* The dunder method of an instance's class (borrowed), NULL when absent. */
CrValue  *cr_instance_method     (CrValue         *instance,
                                  const char      *name);
/* Call a dunder method of an instance with self prepended. */
CrValue  *cr_interp_call_method  (CrInterp        *self,
                                  CrValue         *instance,
                                  CrValue         *method,
                                  CrValue *const  *args,
                                  guint            n_args,
                                  GError         **error);
/* Import a module by dotted name (cached), torch's or math. */
CrValue  *cr_interp_import       (CrInterp        *self,
                                  const char      *dotted,
                                  GError         **error);
/* Forget the error being raised (a builtin or `with` swallowed it). */
void      cr_interp_forget_error (CrInterp      *self);
/* Error bookkeeping when an error leaves a frame. */
void      cr_interp_traceback_push (CrInterp      *self,
                                    CrFrame       *frame,
                                    GError        *error);
/* The class of an exception code and an instance of it with one message. */
CrValue  *cr_interp_exception_instance (CrInterp  *self,
                                        CrException code,
                                        const char *message);

/* ---- iteration ------------------------------------------------------------- */
typedef enum {
  CR_ITER_RANGE,
  CR_ITER_SEQ,
  CR_ITER_STR,
  CR_ITER_DICT,
  CR_ITER_TENSOR,
  CR_ITER_VIEW,       /* an iterator object (zip, map, iter(list), ...): consumes it */
  CR_ITER_NATIVE,     /* an object whose type has a next hook (a generator...) */
  CR_ITER_NEXT_METHOD,/* an instance whose class has __next__ (until StopIteration) */
} CrIterMode;

typedef struct {
  CrIterMode  mode;
  CrValue    *source;   /* owned */
  gint64      i, n, step, cur;
  gsize       offset;
} CrIter;

gboolean  cr_iter_init           (CrInterp        *self,
                                  CrIter          *iter,
                                  CrValue         *value,
                                  GError         **error);
/* 1: *out is a new ref; 0: exhausted; -1: error. */
int       cr_iter_next           (CrInterp        *self,
                                  CrIter          *iter,
                                  CrValue        **out,
                                  GError         **error);
void      cr_iter_clear          (CrIter          *iter);
/* Everything value yields, as a new list. */
CrValue  *cr_iter_to_list        (CrInterp        *self,
                                  CrValue         *value,
                                  GError         **error);

/* ---- operators (cr-operators.c) -------------------------------------------- */
CrValue  *cr_binary_op           (CrInterp        *self,
                                  CrBinOp          op,
                                  CrValue         *a,
                                  CrValue         *b,
                                  GError         **error);
/* a op= b: in place for tensors and lists, else the binary op. */
CrValue  *cr_inplace_op          (CrInterp        *self,
                                  CrBinOp          op,
                                  CrValue         *a,
                                  CrValue         *b,
                                  GError         **error);
CrValue  *cr_unary_op            (CrInterp        *self,
                                  CrUnOp           op,
                                  CrValue         *a,
                                  GError         **error);
CrValue  *cr_compare_op          (CrInterp        *self,
                                  CrCmpOp          op,
                                  CrValue         *a,
                                  CrValue         *b,
                                  GError         **error);
/* a < b as a C boolean (sort, min, max); -1 on error. */
int       cr_less_than           (CrInterp        *self,
                                  CrValue         *a,
                                  CrValue         *b,
                                  GError         **error);
const char *cr_binop_symbol      (CrBinOp          op);
/* "%.2f" % x */
char     *cr_percent_format      (CrInterp        *self,
                                  const char      *format,
                                  CrValue         *args,
                                  GError         **error);
/* format(value, spec) */
char     *cr_format_value        (CrInterp        *self,
                                  CrValue         *value,
                                  const char      *spec,
                                  GError         **error);

/* ---- values (cr-value.c) -------------------------------------------------- */
/* A value's struct (ref_count 1, kind set, the rest for the caller to fill),
 * charged to the memory budget: every value is made here or by a
 * cr_value_new_* constructor, since freeing one gives its charge back. */
CrValue  *cr_value_alloc         (CrValueKind      kind);
/* Python's hash(v) of a hashable value (error: a __hash__ that raised). */
gint64    cr_value_hash          (CrValue         *v,
                                  GError         **error);
/* The interpreter whose __hash__ and __eq__ dict keys on this thread use
 * (set around each run; NULL: keys by identity). */
void      cr_value_set_thread_interp (CrInterp     *interp);
gboolean  cr_value_hashable      (CrValue         *v,
                                  GError         **error);
gboolean  cr_dict_delete         (CrValue         *dict,
                                  CrValue         *key,
                                  GError         **error);
void      cr_dict_clear          (CrValue         *dict);
CrValue  *cr_value_new_list_take (GPtrArray       *items);      /* takes the array and its refs */
CrValue  *cr_value_new_tuple_take(GPtrArray       *items);
CrValue  *cr_value_new_slice     (CrValue         *start,
                                  CrValue         *stop,
                                  CrValue         *step);        /* refs; NULL: None */
CrValue  *cr_value_new_range     (gint64           start,
                                  gint64           stop,
                                  gint64           step);
CrValue  *cr_value_ellipsis      (void);
CrValue  *cr_value_not_implemented (void);
gint64    cr_range_len           (CrValue         *range);
/* Python's slice.indices(): FALSE with ValueError for a zero step. */
gboolean  cr_slice_indices       (CrValue         *slice,
                                  gint64           length,
                                  gint64          *start,
                                  gint64          *stop,
                                  gint64          *step,
                                  gint64          *slicelength,
                                  GError         **error);
/* An integer index (int, bool, integer 0-d tensor); FALSE: not an index (no error). */
gboolean  cr_value_as_index      (CrValue         *v,
                                  gint64          *out);
gsize     cr_str_char_len        (CrValue         *str);
/* repr() with a Python-style guard against self-containing containers. */
gboolean  cr_value_repr_into     (CrInterp        *interp,
                                  CrValue         *v,
                                  GString         *out,
                                  GError         **error);

/* A native object type the interpreter uses for iterator-like results
 * (zip, map, enumerate, reversed, dict views): a list with a type name. */
extern const CrObjectType cr_seq_view_type;

/* Sets (cr-value-set.c): a native object over a dict of its elements. */
extern const CrObjectType cr_set_type;
CrValue  *cr_set_new             (void);
gboolean  cr_value_is_set        (CrValue         *v);
CrValue  *cr_set_dict            (CrValue         *set);          /* borrowed */
/* The elements in Python's iteration order (a new tuple). */
CrValue  *cr_set_items           (CrValue         *set);
gboolean  cr_set_add             (CrValue         *set,
                                  CrValue         *item,
                                  GError         **error);
CrValue  *cr_set_from_iterable   (CrInterp        *self,
                                  CrValue         *iterable,
                                  GError         **error);
/* op: '|', '&', '-' or '^' */
CrValue  *cr_set_binop           (CrValue         *a,
                                  CrValue         *b,
                                  char             op,
                                  GError         **error);
typedef struct {
  const char *type_name;   /* static: "zip", "dict_keys" */
  gboolean    wrapped;     /* repr "dict_keys([...])" rather than "<zip object at 0x...>" */
  CrValue    *list;        /* owned; NULL for a dict view */
  CrValue    *dict;        /* owned: a dict view is live, as Python's are */
  int         dict_part;   /* 0 keys, 1 values, 2 items */
  guint       pos;         /* an iterator's (not wrapped) items already taken */
} CrSeqView;
CrValue  *cr_seq_view_new        (const char      *type_name,
                                  gboolean         wrapped,
                                  CrValue         *list);        /* takes list */
CrValue  *cr_seq_view_new_dict   (CrValue         *dict,
                                  int              part);        /* refs dict */
/* The items a view yields now (a new list). */
CrValue  *cr_seq_view_items      (CrValue         *view);

/* staticmethod / property wrappers (cr-builtins.c). */
extern const CrObjectType cr_staticmethod_type;
extern const CrObjectType cr_classmethod_type;
extern const CrObjectType cr_super_type;

/* ---- builtins (cr-builtins.c, cr-methods.c) -------------------------------- */
void      cr_builtins_install    (CrInterp        *self);
/* A builtin method of a str, list, dict, ... bound to obj; NULL when none. */
CrValue  *cr_builtin_method      (CrInterp        *self,
                                  CrValue         *obj,
                                  const char      *name);
/* str.lower, list.append, ...: a builtin type's method, called with the
 * object first; NULL when cls is no builtin type or has no such method. */
CrValue  *cr_builtin_unbound_method (CrInterp     *self,
                                     CrValue      *cls,
                                     const char   *name);
void      cr_methods_install     (CrInterp        *self);
void      cr_builtins_iter_install (CrInterp      *self);
/* iter, next, zip, map, filter, enumerate, reversed (cr-iterators.c). */
void      cr_iterators_install   (CrInterp        *self);
/* The iterator of Python's sequence protocol over obj: obj[0], obj[1], ...
 * until IndexError or StopIteration (a new ref). */
CrValue  *cr_sequence_iterator_new (CrValue       *obj);
void      cr_builtins_math_install (CrInterp      *self);
/* Argument checks shared by the builtins, with CPython's TypeError texts. */
gboolean  cr_builtin_no_kwargs   (const char      *fname,
                                  guint            n_kwargs,
                                  const CrKwarg   *kwargs,
                                  GError         **error);
gboolean  cr_builtin_arg_count   (const char      *fname,
                                  guint            n_args,
                                  guint            min,
                                  guint            max,
                                  GError         **error);
gboolean  cr_builtin_int_arg     (CrValue         *v,
                                  gint64          *out,
                                  GError         **error);
CrValue  *cr_builtin_float_to_int (double          d,
                                   GError        **error);
/* The constructors of list, tuple and dict. */
CrValue  *cr_builtin_list        (CR_NATIVE_PARAMS);
CrValue  *cr_builtin_tuple       (CR_NATIVE_PARAMS);
CrValue  *cr_builtin_dict        (CR_NATIVE_PARAMS);
gboolean  cr_sort_list           (CrInterp        *self,
                                  CrValue         *list,
                                  CrValue         *key,
                                  gboolean         reverse,
                                  GError         **error);
gboolean  cr_dict_update_from    (CrInterp        *self,
                                  CrValue         *dict,
                                  CrValue         *src,
                                  GError         **error);
CrValue  *cr_math_module_new     (void);
/* `_random`: the Mersenne Twister under the prelude's random.py (cr-pyrandom.c). */
CrValue  *cr_pyrandom_module_new (void);
CrValue  *cr_time_module_new     (void);
/* The builtin class for values of kind (int, float, str, ...), borrowed. */
CrValue  *cr_interp_type_of      (CrInterp        *self,
                                  CrValue         *v);

/* `name = value` in the script's own code: a value with slots (a tensor)
 * takes the name (cr_binding.bind_name). */
static inline void
cr_interp_note_binding (CrInterp   *self,
                        CrValue    *value,
                        const char *name)
{
  if (G_UNLIKELY (cr_value_slots (value) != NULL) && !self->in_prelude)
    cr_binding.bind_name (self, value, name);
}

/* ---- scopes (cr-prelude.c) ---------------------------------------------------- */
typedef struct {
  const CrScope    *scope;
  const CrAstNode  *user_stmt;
} CrScopeSaved;

/* Makes scope's module the one whose names and lines are used, keeping the
 * current one in *saved for cr_interp_scope_leave. Entering the prelude from
 * the script remembers the script's statement (self->frame's, the caller). */
static inline void
cr_interp_scope_enter (CrInterp       *self,
                       const CrScope  *scope,
                       CrScopeSaved   *saved)
{
  saved->scope = self->scope;
  saved->user_stmt = self->user_stmt;
  if (scope->is_prelude && !self->in_prelude)
    self->user_stmt = self->frame ? self->frame->stmt : NULL;
  self->scope = scope;
  self->module = scope->module;
  self->program = scope->program;
  self->globals = scope->globals;
  self->n_globals = scope->n_globals;
  self->in_prelude = scope->is_prelude;
}

static inline void
cr_interp_scope_leave (CrInterp           *self,
                       const CrScopeSaved *saved)
{
  const CrScope *scope = saved->scope;
  self->scope = scope;
  self->module = scope->module;
  self->program = scope->program;
  self->globals = scope->globals;
  self->n_globals = scope->n_globals;
  self->in_prelude = scope->is_prelude;
  self->user_stmt = saved->user_stmt;
}

/* The span new graph nodes get after a call returns into frame: its
 * statement's, or in prelude code the script statement that called it. */
static inline const CrAstNode *
cr_interp_span_stmt (CrInterp *self,
                     CrFrame  *frame)
{
  return self->in_prelude ? self->user_stmt : frame ? frame->stmt : NULL;
}

/* A prelude module, imported (run) once per interpreter: NULL with
 * *handled FALSE when dotted names none. */
CrValue  *cr_prelude_import      (CrInterp        *self,
                                  const char      *dotted,
                                  gboolean        *handled,
                                  GError         **error);
/* A module attribute not set yet that names a prelude submodule
 * (`torch.nn` after `import torch`): imports it. NULL: none (no error), or
 * an error while running it. */
CrValue  *cr_prelude_submodule   (CrInterp        *self,
                                  CrValue         *module,
                                  const char      *name,
                                  GError         **error);
void      cr_prelude_scopes_free (CrInterp        *self);

/* Pin the error being raised to node, unless a node deeper in this frame's
 * evaluation already claimed it (the traceback shows the innermost one). */
static inline void
cr_interp_locate (CrInterp        *self,
                  const CrAstNode *node)
{
  if (!self->err_located)
    {
      self->err_located = TRUE;
      self->err_node = node;
    }
}

/* Node n of the running code raised *error (before cr_interp_locate):
 * the binding hears of it (CrBinding.expr_failed) when it is the script's
 * first failure of that error in this frame, for the run record. */
void      cr_interp_note_failure  (CrInterp        *self,
                                   const CrAstNode *n,
                                   GError         **error);

/* The stripped text of line (a new string). */
char     *cr_interp_source_line  (CrInterp        *self,
                                  int              line);

G_END_DECLS
