-- add_wait: make a step of a flow wait for a signal before it runs. Idempotent; upstream's
-- add_step keeps its signature, the wait is stored in step_waits.

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
