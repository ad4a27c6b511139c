-- Composite types. Field order is part of the upstream contract (select * comparisons).

create type pgflow.step_task_record as (
  flow_slug text,
  run_id uuid,
  step_slug text,
  input jsonb,
  msg_id bigint,
  task_index int,
  flow_input jsonb
);

comment on type pgflow.step_task_record is
'One started task as returned by pgflow.start_tasks: flow_slug, run_id, step_slug, input
(handler input assembled from tables), msg_id (pgmq message id), task_index (0 for single
steps, element index for map tasks), flow_input (the run input for root single steps, else
NULL). Field order as upstream pgflow 0.14.1.';
