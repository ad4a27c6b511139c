-- Flow definitions: flows, steps, deps. Column order and constraint names follow upstream
-- pgflow 0.14.1 (compat/UPSTREAM.md).

create table pgflow.flows (
  flow_slug text primary key,
  opt_max_attempts int not null default 3,
  opt_base_delay int not null default 1,
  opt_timeout int not null default 60,
  created_at timestamptz not null default now(),
  opt_concurrency_limit int,
  opt_on_limit text not null default 'queue',
  opt_run_timeout int,
  constraint slug_is_valid check (pgflow.is_valid_slug(flow_slug)),
  constraint opt_max_attempts_is_nonnegative check (opt_max_attempts >= 0),
  constraint opt_base_delay_is_nonnegative check (opt_base_delay >= 0),
  constraint opt_timeout_is_positive check (opt_timeout > 0),
  constraint pgflow_py_concurrency_limit_is_positive
    check (opt_concurrency_limit is null or opt_concurrency_limit > 0),
  constraint pgflow_py_on_limit_is_valid check (opt_on_limit in ('queue', 'reject')),
  constraint pgflow_py_run_timeout_is_positive check (opt_run_timeout is null or opt_run_timeout > 0)
);

comment on table pgflow.flows is
'One row per flow (a DAG of steps). opt_* are flow-wide defaults: max_attempts (total
attempts, first try included), base_delay (seconds, retry backoff base), timeout (seconds,
per task). Each flow has a pgmq queue named like flow_slug. pgflow-py options:
opt_concurrency_limit (at most that many unfinished runs per concurrency key; NULL: no
limit), opt_on_limit (queue: a run over the limit waits in status queued; reject:
start_flow raises), opt_run_timeout (seconds: the default deadline of a run, NULL: none).';

create table pgflow.steps (
  flow_slug text not null references pgflow.flows (flow_slug),
  step_slug text not null,
  step_type text not null default 'single',
  step_index int not null default 0,
  deps_count int not null default 0,
  opt_max_attempts int,
  opt_base_delay int,
  opt_timeout int,
  created_at timestamptz not null default now(),
  opt_start_delay int,
  required_input_pattern jsonb,
  forbidden_input_pattern jsonb,
  when_unmet text not null default 'skip',
  when_exhausted text not null default 'fail',
  opt_max_in_flight int,
  constraint steps_pkey primary key (flow_slug, step_slug),
  constraint steps_flow_slug_step_index_key unique (flow_slug, step_index),
  constraint steps_step_slug_check check (pgflow.is_valid_slug(step_slug)),
  constraint steps_step_type_check check (step_type in ('single', 'map')),
  constraint steps_deps_count_check check (deps_count >= 0),
  constraint opt_max_attempts_is_nonnegative check (opt_max_attempts is null or opt_max_attempts >= 0),
  constraint opt_base_delay_is_nonnegative check (opt_base_delay is null or opt_base_delay >= 0),
  constraint opt_timeout_is_positive check (opt_timeout is null or opt_timeout > 0),
  constraint opt_start_delay_is_nonnegative check (opt_start_delay is null or opt_start_delay >= 0),
  constraint required_input_pattern_is_object check (
    required_input_pattern is null or jsonb_typeof(required_input_pattern) = 'object'
  ),
  constraint forbidden_input_pattern_is_object check (
    forbidden_input_pattern is null or jsonb_typeof(forbidden_input_pattern) = 'object'
  ),
  constraint when_unmet_is_valid check (when_unmet in ('fail', 'skip', 'skip-cascade')),
  constraint when_exhausted_is_valid check (when_exhausted in ('fail', 'skip', 'skip-cascade')),
  constraint pgflow_py_max_in_flight_is_positive check (opt_max_in_flight is null or opt_max_in_flight > 0)
);

comment on table pgflow.steps is
'One row per step of a flow. step_index is the definition (topological) order. step_type
single (one task) or map (one task per array element). NULL opt_* inherit the flow value;
opt_start_delay (seconds) delays the first message only. required/forbidden_input_pattern
are jsonb containment conditions; when_unmet and when_exhausted choose fail, skip or
skip-cascade. opt_max_in_flight (pgflow-py): at most that many tasks of the step are
started at once, across runs and workers (NULL: no limit).';

create table pgflow.deps (
  flow_slug text not null references pgflow.flows (flow_slug),
  dep_slug text not null,
  step_slug text not null,
  created_at timestamptz not null default now(),
  constraint deps_pkey primary key (flow_slug, dep_slug, step_slug),
  constraint deps_flow_slug_dep_slug_fkey foreign key (flow_slug, dep_slug)
    references pgflow.steps (flow_slug, step_slug),
  constraint deps_flow_slug_step_slug_fkey foreign key (flow_slug, step_slug)
    references pgflow.steps (flow_slug, step_slug),
  constraint deps_check check (dep_slug <> step_slug)
);

comment on table pgflow.deps is
'Dependency edges: step_slug (the child) runs after dep_slug (the parent) completes.';

-- pgflow-py: the steps with a max_in_flight (empty unless the feature is used, so the
-- check "does any step limit its tasks" costs one probe of an empty index).
create index idx_steps_max_in_flight on pgflow.steps (flow_slug, step_slug)
  where opt_max_in_flight is not null;

create index idx_deps_by_flow_step on pgflow.deps (flow_slug, step_slug);
create index idx_deps_by_flow_dep on pgflow.deps (flow_slug, dep_slug);
