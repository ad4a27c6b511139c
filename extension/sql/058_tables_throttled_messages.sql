-- Tasks held back by their step's max_in_flight: their messages wait, invisible, for a slot.

create table pgflow.throttled_messages (
  flow_slug text not null,
  step_slug text not null,
  message_id bigint not null,
  throttled_at timestamptz not null default pgflow._now(),
  constraint throttled_messages_pkey primary key (flow_slug, step_slug, message_id)
);

comment on table pgflow.throttled_messages is
'pgflow-py extension: the messages of queued tasks that a claim held back because their
step (steps.opt_max_in_flight) had as many tasks started as it allows. Each such message
was made invisible (pgmq vt far ahead) and is listed here; when a task of the step stops
being started (completed, failed, retried, requeued, cancelled), _release_throttled_messages
makes the oldest of them visible again, one per free slot (the tick does it too, should a
release be missed). A row whose task is no longer queued is dropped when met. No attempt is
spent on a held task.';
