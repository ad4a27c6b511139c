-- Scheduled flows (pg_cron). pgflow-py extension; upstream has no schedules.

create table pgflow.schedules (
  schedule_name text primary key,
  flow_slug text not null references pgflow.flows (flow_slug),
  schedule text not null,
  input jsonb not null,
  job_id bigint,
  created_at timestamptz not null default pgflow._now(),
  updated_at timestamptz not null default pgflow._now(),
  constraint schedule_name_is_valid check (
    pgflow.is_valid_slug(schedule_name) and length(schedule_name) <= 47
  )
);

comment on table pgflow.schedules is
'One row per schedule created by pgflow.schedule_flow: its pg_cron job
(pgflow_schedule:<schedule_name>, id job_id) starts flow_slug with input on schedule (a
cron expression, or ''N seconds'' on pg_cron >= 1.5), one run per time slot.';

create index idx_schedules_flow_slug on pgflow.schedules (flow_slug);
