/* cr-run-record-fields.c — each item of the run record described once,
 * field by field (cr-run-record-fields.h): the wire form and the JSON both
 * walk these tables.
 *
 * Rows are in cr-run-record.h's order, which is the wire form's and, but
 * for two items (module calls and backward calls, whose loop path comes
 * earlier there), the JSON's. */
#include "cr-run-record-fields.h"

/* The JSON's words for each enum's values, in the enum's order. */
static const char *const origin_names[] = { "leaf", "result", "constant", "no_grad", "detached" };
static const char *const region_kind_names[] = { "no_grad", "enable_grad", "grad_disabled", "inference_mode" };
static const char *const hook_kind_names[] = { "tensor", "retain_grad", "module" };
static const char *const step_kind_names[] = { "node", "accumulate" };
static const char *const backward_kind_names[] = { "backward", "grad" };
static const char *const update_kind_names[] = { "optimizer", "manual" };

/* Each item's plain fields in the order they travel; an item with arrays
 * of sub-items has a table for each run of plain fields between them. */

static const RecordField grad_fields_rows[] = {
  FIELD_STRING (CrRecordGrad, name),
  FIELD_I32 (CrRecordGrad, tensor),
  FIELD_SNAPSHOT (CrRecordGrad, value),
};
const RecordFields cr_record_grad_fields = { grad_fields_rows, G_N_ELEMENTS (grad_fields_rows) };

static const RecordField tensor_fields_rows[] = {
  FIELD_STRING (CrRecordTensor, name),
  FIELD_U32 (CrRecordTensor, iteration),
  FIELD_STRING (CrRecordTensor, label),
  FIELD_STRING (CrRecordTensor, module_path),
  FIELD_ENUM (CrRecordTensor, origin, CR_RECORD_TENSOR_DETACHED, "tensor origin", origin_names),
  FIELD_I32 (CrRecordTensor, op),
  FIELD_U32 (CrRecordTensor, output_nr),
  FIELD_I32 (CrRecordTensor, source),
  FIELD_I32 (CrRecordTensor, region),
  FIELD_SPAN (CrRecordTensor, span),
  FIELD_SHAPE (CrRecordTensor, ndim, shape),
  FIELD_STRING (CrRecordTensor, dtype),
  FIELD_STRING (CrRecordTensor, device),
  FIELD_BOOL (CrRecordTensor, requires_grad),
  FIELD_BOOL (CrRecordTensor, retains_grad),
  FIELD_SNAPSHOT (CrRecordTensor, value),
  FIELD_LOOP_PATH (CrRecordTensor),
};
const RecordFields cr_record_tensor_fields = { tensor_fields_rows, G_N_ELEMENTS (tensor_fields_rows) };

static const RecordField saved_fields_rows[] = {
  FIELD_STRING (CrRecordSaved, name),
  FIELD_I32 (CrRecordSaved, tensor),
  FIELD_SHAPE (CrRecordSaved, ndim, shape),
  FIELD_SNAPSHOT (CrRecordSaved, value),
  FIELD_I32 (CrRecordSaved, freed_backward),
  FIELD_I32 (CrRecordSaved, freed_step),
  FIELD_SPAN (CrRecordSaved, modified_span),
  FIELD_BOOL (CrRecordSaved, internal),
};
const RecordFields cr_record_saved_fields = { saved_fields_rows, G_N_ELEMENTS (saved_fields_rows) };

/* Then the saved tensors, the loop path and the arguments. */
static const RecordField op_fields_rows[] = {
  FIELD_STRING (CrRecordOp, grad_fn),
  FIELD_STRING (CrRecordOp, symbol),
  FIELD_STRING (CrRecordOp, caption),
  FIELD_SPAN (CrRecordOp, span),
  FIELD_STRING (CrRecordOp, key),
  FIELD_INDEX_ARRAY (CrRecordOp, inputs),
  FIELD_INDEX_ARRAY (CrRecordOp, outputs),
  FIELD_I32 (CrRecordOp, module_call),
  FIELD_U32 (CrRecordOp, iteration),
  FIELD_STRING (CrRecordOp, custom_function),
  FIELD_BOOL (CrRecordOp, in_place),
  FIELD_RULE (CrRecordOp, rule),
};
const RecordFields cr_record_op_fields = { op_fields_rows, G_N_ELEMENTS (op_fields_rows) };

static const RecordField op_tail_fields_rows[] = {
  FIELD_LOOP_PATH (CrRecordOp),
};
const RecordFields cr_record_op_tail_fields = { op_tail_fields_rows, G_N_ELEMENTS (op_tail_fields_rows) };

static const RecordField module_call_fields_rows[] = {
  FIELD_STRING (CrRecordModuleCall, path),
  FIELD_STRING (CrRecordModuleCall, class_name),
  FIELD_I32 (CrRecordModuleCall, parent),
  FIELD_U32 (CrRecordModuleCall, depth),
  FIELD_U32 (CrRecordModuleCall, iteration),
  FIELD_SPAN (CrRecordModuleCall, span),
  FIELD_BOOL (CrRecordModuleCall, user_class),
  FIELD_LOOP_PATH (CrRecordModuleCall),
};
const RecordFields cr_record_module_call_fields = { module_call_fields_rows, G_N_ELEMENTS (module_call_fields_rows) };

static const RecordField region_fields_rows[] = {
  FIELD_ENUM (CrRecordRegion, kind, CR_RECORD_REGION_INFERENCE, "region kind", region_kind_names),
  FIELD_SPAN (CrRecordRegion, span),
  FIELD_U32 (CrRecordRegion, iteration),
  FIELD_LOOP_PATH (CrRecordRegion),
};
const RecordFields cr_record_region_fields = { region_fields_rows, G_N_ELEMENTS (region_fields_rows) };

/* Then the reduction, if any, and the outgoing gradient (grad_fields). */
static const RecordField step_input_fields_rows[] = {
  FIELD_I32 (CrRecordStepInput, tensor),
  FIELD_I32 (CrRecordStepInput, to_op),
  FIELD_I32 (CrRecordStepInput, to_leaf),
  FIELD_STRING (CrRecordStepInput, name),
  FIELD_STRING (CrRecordStepInput, local_name),
  FIELD_SNAPSHOT (CrRecordStepInput, local),
  FIELD_SNAPSHOT (CrRecordStepInput, product),
};
const RecordFields cr_record_step_input_fields = { step_input_fields_rows, G_N_ELEMENTS (step_input_fields_rows) };

static const RecordField hook_fields_rows[] = {
  FIELD_ENUM (CrRecordHookCall, kind, CR_RECORD_HOOK_MODULE, "hook kind", hook_kind_names),
  FIELD_I32 (CrRecordHookCall, tensor),
  FIELD_STRING (CrRecordHookCall, function),
  FIELD_SPAN (CrRecordHookCall, span),
  FIELD_SNAPSHOT (CrRecordHookCall, before),
  FIELD_SNAPSHOT (CrRecordHookCall, after),
  FIELD_BOOL (CrRecordHookCall, raised),
};
const RecordFields cr_record_hook_fields = { hook_fields_rows, G_N_ELEMENTS (hook_fields_rows) };

static const RecordField accumulation_fields_rows[] = {
  FIELD_STRING (CrRecordAccumulation, name),
  FIELD_I32 (CrRecordAccumulation, tensor),
  FIELD_I32 (CrRecordAccumulation, to_op),
  FIELD_SNAPSHOT (CrRecordAccumulation, contribution),
  FIELD_SNAPSHOT (CrRecordAccumulation, sum),
};
const RecordFields cr_record_accumulation_fields = { accumulation_fields_rows, G_N_ELEMENTS (accumulation_fields_rows) };

/* A step: these, its hooks and incoming gradients, step_rule_fields, its
 * inputs and accumulations, step_tail_fields. */
static const RecordField step_fields_rows[] = {
  FIELD_ENUM (CrRecordStep, kind, CR_RECORD_STEP_ACCUMULATE, "step kind", step_kind_names),
  FIELD_I32 (CrRecordStep, op),
  FIELD_I32 (CrRecordStep, leaf),
  FIELD_STRING (CrRecordStep, title),
  FIELD_STRING (CrRecordStep, caption),
};
const RecordFields cr_record_step_fields = { step_fields_rows, G_N_ELEMENTS (step_fields_rows) };

static const RecordField step_rule_fields_rows[] = {
  FIELD_RULE (CrRecordStep, rule),
  FIELD_STRING (CrRecordStep, custom_backward),
  FIELD_SPAN (CrRecordStep, custom_span),
};
const RecordFields cr_record_step_rule_fields = { step_rule_fields_rows, G_N_ELEMENTS (step_rule_fields_rows) };

static const RecordField step_tail_fields_rows[] = {
  FIELD_SNAPSHOT (CrRecordStep, grad_before),
  FIELD_SNAPSHOT (CrRecordStep, grad_after),
  FIELD_BOOL (CrRecordStep, failed),
};
const RecordFields cr_record_step_tail_fields = { step_tail_fields_rows, G_N_ELEMENTS (step_tail_fields_rows) };

/* A backward call: these, its steps, its loop path, its root gradients and
 * root accumulations. */
static const RecordField backward_fields_rows[] = {
  FIELD_ENUM (CrRecordBackward, kind, CR_RECORD_BACKWARD_GRAD, "backward kind", backward_kind_names),
  FIELD_STRING (CrRecordBackward, title),
  FIELD_SPAN (CrRecordBackward, span),
  FIELD_U32 (CrRecordBackward, iteration),
  FIELD_INDEX_ARRAY (CrRecordBackward, roots),
  FIELD_STRING (CrRecordBackward, root_name),
  FIELD_BOOL (CrRecordBackward, retain_graph),
  FIELD_BOOL (CrRecordBackward, create_graph),
  FIELD_BOOL (CrRecordBackward, succeeded),
  FIELD_I32 (CrRecordBackward, error),
};
const RecordFields cr_record_backward_fields = { backward_fields_rows, G_N_ELEMENTS (backward_fields_rows) };

static const RecordField backward_tail_fields_rows[] = {
  FIELD_LOOP_PATH (CrRecordBackward),
};
const RecordFields cr_record_backward_tail_fields = { backward_tail_fields_rows, G_N_ELEMENTS (backward_tail_fields_rows) };

static const RecordField error_fields_rows[] = {
  FIELD_STRING (CrRecordError, type),
  FIELD_STRING (CrRecordError, message),
  FIELD_SPAN (CrRecordError, span),
  FIELD_I32 (CrRecordError, op),
  FIELD_I32 (CrRecordError, backward),
  FIELD_I32 (CrRecordError, step),
  FIELD_I32 (CrRecordError, tensor),
  FIELD_SPAN (CrRecordError, culprit_span),
  FIELD_INDEX_ARRAY (CrRecordError, operands),
};
const RecordFields cr_record_error_fields = { error_fields_rows, G_N_ELEMENTS (error_fields_rows) };

static const RecordField finding_fields_rows[] = {
  FIELD_STRING (CrRecordFinding, kind),
  FIELD_SPAN (CrRecordFinding, span),
  FIELD_I32 (CrRecordFinding, op),
  FIELD_I32 (CrRecordFinding, tensor),
  FIELD_I32 (CrRecordFinding, backward),
  FIELD_STRING (CrRecordFinding, title),
  FIELD_STRING (CrRecordFinding, explanation),
  FIELD_SPAN (CrRecordFinding, fix_span),
  FIELD_STRING (CrRecordFinding, fix),
};
const RecordFields cr_record_finding_fields = { finding_fields_rows, G_N_ELEMENTS (finding_fields_rows) };

/* An update: these, its numbers, update_value_fields, its state (each
 * entry's name, then state_fields). */
static const RecordField update_fields_rows[] = {
  FIELD_ENUM (CrRecordUpdate, kind, CR_RECORD_UPDATE_MANUAL, "update kind", update_kind_names),
  FIELD_STRING (CrRecordUpdate, optimizer),
  FIELD_U32 (CrRecordUpdate, optimizer_id),
  FIELD_U32 (CrRecordUpdate, step),
  FIELD_U32 (CrRecordUpdate, group),
  FIELD_I32 (CrRecordUpdate, tensor),
  FIELD_STRING (CrRecordUpdate, name),
  FIELD_SPAN (CrRecordUpdate, span),
  FIELD_I32 (CrRecordUpdate, backward),
  FIELD_U32 (CrRecordUpdate, iteration),
  FIELD_LOOP_PATH (CrRecordUpdate),
};
const RecordFields cr_record_update_fields = { update_fields_rows, G_N_ELEMENTS (update_fields_rows) };

static const RecordField update_value_fields_rows[] = {
  FIELD_SNAPSHOT (CrRecordUpdate, grad),
  FIELD_SNAPSHOT (CrRecordUpdate, before),
  FIELD_SNAPSHOT (CrRecordUpdate, after),
};
const RecordFields cr_record_update_value_fields = { update_value_fields_rows, G_N_ELEMENTS (update_value_fields_rows) };

static const RecordField state_fields_rows[] = {
  FIELD_SNAPSHOT (CrRecordOptimState, before),
  FIELD_SNAPSHOT (CrRecordOptimState, after),
};
const RecordFields cr_record_state_fields = { state_fields_rows, G_N_ELEMENTS (state_fields_rows) };

/* A printed number: its name and value (its constructor's), then these. */
static const RecordField printed_fields_rows[] = {
  FIELD_SPAN (CrRecordPrinted, span),
  FIELD_I32 (CrRecordPrinted, backward),
  FIELD_U32 (CrRecordPrinted, iteration),
};
const RecordFields cr_record_printed_fields = { printed_fields_rows, G_N_ELEMENTS (printed_fields_rows) };
