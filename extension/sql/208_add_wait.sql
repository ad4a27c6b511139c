-- add_wait / add_timer: make a step of a flow wait for a signal or for a time before it runs.
-- Idempotent; upstream's add_step keeps its signature, the wait is stored in step_waits.

create function pgflow._lock_step_definition(caller text, flow_slug text, step_slug text)
returns pgflow.steps
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_step pgflow.steps;
begin
  -- LOCK: definitions of one flow are serialised on its flows row (as add_step).
  perform 1 from pgflow.flows as f where f.flow_slug = _lock_step_definition.flow_slug for update;
  select s.* into v_step
  from pgflow.steps as s
  where s.flow_slug = _lock_step_definition.flow_slug and s.step_slug = _lock_step_definition.step_slug;
  if not found then
    raise exception using
      errcode = 'foreign_key_violation',
      message = format('%s: step %L of flow %L does not exist', _lock_step_definition.caller,
                       _lock_step_definition.step_slug, _lock_step_definition.flow_slug),
      hint = 'Add the step first with pgflow.add_step.';
  end if;
  if v_step.step_type <> 'single' then
    raise exception using
      errcode = 'check_violation',
      message = format('%s: step %L of flow %L is a map step; only a single step can wait',
                       _lock_step_definition.caller, v_step.step_slug, v_step.flow_slug),
      hint = 'Put a wait step before the map step (depends_on).';
  end if;
  return v_step;
end;
$$;

comment on function pgflow._lock_step_definition(text, text, text) is
'The start of add_wait and add_timer (caller: its name, for messages): locks the flows row of
flow_slug (definitions of a flow are serialised) and returns step step_slug. Raises
foreign_key_violation when the flow or the step does not exist, check_violation for a map
step (only single steps wait). pgflow-py internal.';

create function pgflow._store_step_wait(wait pgflow.step_waits)
returns pgflow.step_waits
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_existing pgflow.step_waits;
begin
  insert into pgflow.step_waits (flow_slug, step_slug, kind, signal_name, signal_match,
    timeout_seconds, on_timeout, runs_handler, sleep_seconds, sleep_until)
  values ((wait).flow_slug, (wait).step_slug, (wait).kind, (wait).signal_name, (wait).signal_match,
    (wait).timeout_seconds, (wait).on_timeout, (wait).runs_handler, (wait).sleep_seconds,
    (wait).sleep_until)
  on conflict on constraint step_waits_pkey do nothing
  returning * into v_existing;
  if found then
    return v_existing;
  end if;
  -- The step waits already: the same wait again is a no-op, another one an error.
  select w.* into v_existing
  from pgflow.step_waits as w
  where w.flow_slug = (wait).flow_slug and w.step_slug = (wait).step_slug;
  if (v_existing.kind, v_existing.signal_name, v_existing.signal_match, v_existing.timeout_seconds,
      v_existing.on_timeout, v_existing.runs_handler, v_existing.sleep_seconds, v_existing.sleep_until)
     is distinct from ((wait).kind, (wait).signal_name, (wait).signal_match, (wait).timeout_seconds,
      (wait).on_timeout, (wait).runs_handler, (wait).sleep_seconds, (wait).sleep_until) then
    raise exception using
      errcode = 'unique_violation',
      message = format('Step %L of flow %L already waits, with other settings', (wait).step_slug,
                       (wait).flow_slug),
      hint = 'A flow''s definition does not change: create a new flow (or delete this one in development).';
  end if;
  return v_existing;
end;
$$;

comment on function pgflow._store_step_wait(pgflow.step_waits) is
'Inserts wait (a step_waits row; created_at is ignored) and returns it; when the step waits
already with the same settings returns the stored row (a repeated definition is a no-op);
raises unique_violation "Step <slug> of flow <slug> already waits, with other settings"
otherwise. Callers validated the row and hold the flows row. pgflow-py internal.';

create function pgflow.add_wait(
  flow_slug text,
  step_slug text,
  signal_name text,
  signal_match jsonb default null,
  timeout int default null,
  on_timeout text default 'fail',
  runs_handler boolean default true
)
returns pgflow.step_waits
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_wait pgflow.step_waits;
begin
  perform pgflow._lock_step_definition('add_wait', add_wait.flow_slug, add_wait.step_slug);
  perform pgflow._check_signal_name('add_wait', add_wait.signal_name);
  if add_wait.signal_match is not null and jsonb_typeof(add_wait.signal_match) <> 'object' then
    raise exception using
      errcode = 'invalid_parameter_value',
      message = format('add_wait: signal_match must be a JSON object (got %s)', jsonb_typeof(add_wait.signal_match)),
      hint = 'A signal is taken when its payload contains signal_match (payload @> signal_match).';
  end if;
  if add_wait.timeout is not null and add_wait.timeout <= 0 then
    raise exception using
      errcode = 'invalid_parameter_value',
      message = format('add_wait: timeout must be a positive number of seconds or NULL (got %s)', add_wait.timeout);
  end if;
  if add_wait.on_timeout is null or add_wait.on_timeout not in ('fail', 'skip', 'skip-cascade', 'continue') then
    raise exception using
      errcode = 'invalid_parameter_value',
      message = format('add_wait: on_timeout must be fail, skip, skip-cascade or continue (got %L)',
                       add_wait.on_timeout);
  end if;
  v_wait.flow_slug := add_wait.flow_slug;
  v_wait.step_slug := add_wait.step_slug;
  v_wait.kind := 'signal';
  v_wait.signal_name := add_wait.signal_name;
  v_wait.signal_match := add_wait.signal_match;
  v_wait.timeout_seconds := add_wait.timeout;
  v_wait.on_timeout := add_wait.on_timeout;
  v_wait.runs_handler := coalesce(add_wait.runs_handler, true);
  return pgflow._store_step_wait(v_wait);
end;
$$;

comment on function pgflow.add_wait(text, text, text, jsonb, int, text, boolean) is
'Makes step step_slug (a single step, added with add_step) of flow flow_slug wait, once its
dependencies are complete and its condition met, for a signal named signal_name sent to the
run (send_signal) whose payload contains signal_match (a jsonb object; NULL: any payload).
timeout: seconds from when the step starts waiting (NULL: no limit); on_timeout: fail (the
step fails with a timed-out error, then its when_exhausted applies), skip, skip-cascade (as
an unmet condition), continue (the step goes on without a signal). runs_handler: true, the
handler runs once the wait resolves and reads the signal (get_step_signal); false, the step
has no handler and completes with the signal''s payload (NULL after a timeout). Returns the
step_waits row. Repeating the same call is a no-op. Raises, writing nothing:
foreign_key_violation (unknown flow or step), check_violation (a map step),
invalid_parameter_value (bad signal name, signal_match not an object, timeout <= 0,
unknown on_timeout), unique_violation (the step already waits, with other settings).
pgflow-py extension.';

create function pgflow.add_timer(
  flow_slug text,
  step_slug text,
  seconds int default null,
  until_path text default null
)
returns pgflow.step_waits
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_step pgflow.steps;
  v_wait pgflow.step_waits;
  v_root text := split_part(add_timer.until_path, '.', 1);
begin
  v_step := pgflow._lock_step_definition('add_timer', add_timer.flow_slug, add_timer.step_slug);
  if (add_timer.seconds is null) = (add_timer.until_path is null) then
    raise exception using
      errcode = 'invalid_parameter_value',
      message = 'add_timer: give either seconds or until_path, not both and not neither';
  end if;
  if add_timer.seconds < 0 then
    raise exception using
      errcode = 'invalid_parameter_value',
      message = format('add_timer: seconds must be >= 0 (got %s)', add_timer.seconds);
  end if;
  if add_timer.until_path is not null and (
       add_timer.until_path !~ '^[^.\s]+(\.[^.\s]+)*$'
       or (v_root <> 'input' and not exists (
             select 1 from pgflow.deps as d
             where d.flow_slug = v_step.flow_slug and d.step_slug = v_step.step_slug
               and d.dep_slug = v_root))) then
    raise exception using
      errcode = 'invalid_parameter_value',
      message = format('add_timer: until_path %L must be input.<key>... or <dependency>.<key>... '
                       '(a dependency of step %L)', add_timer.until_path, add_timer.step_slug),
      hint = 'For example ''input.remind_at'' (the run input) or ''order.ship_by'' (the output of dependency order).';
  end if;
  v_wait.flow_slug := add_timer.flow_slug;
  v_wait.step_slug := add_timer.step_slug;
  v_wait.kind := 'timer';
  v_wait.on_timeout := 'fail';
  v_wait.runs_handler := false;
  v_wait.sleep_seconds := add_timer.seconds;
  v_wait.sleep_until := add_timer.until_path;
  return pgflow._store_step_wait(v_wait);
end;
$$;

comment on function pgflow.add_timer(text, text, int, text) is
'Makes step step_slug (a single step, added with add_step; it has no handler) of flow
flow_slug a timer: once its dependencies are complete and its condition met it waits, with
no task and no worker, and completes (output {"due_at", "fired_at"}) when the time comes
(the engine''s time, pgflow._now()): seconds (>= 0) after it started waiting, or at the ISO
8601 timestamp read at until_path: input.<key>.<key>... in the run input,
<dep_slug>.<key>... in the output of dependency dep_slug (a timestamp without offset is
UTC). A timestamp already past completes
it at once; one that cannot be read fails it (its when_exhausted applies). Returns the
step_waits row. Repeating the same call is a no-op. Raises, writing nothing:
foreign_key_violation (unknown flow or step), check_violation (a map step),
invalid_parameter_value (both or neither of seconds and until_path, seconds < 0, a path
that is not input.... or <dependency>....), unique_violation (the step already waits, with
other settings). pgflow-py extension.';
