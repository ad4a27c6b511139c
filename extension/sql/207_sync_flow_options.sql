-- sync_flow_options: a stored flow's options (retries, delays, timeouts, and pgflow-py's
-- concurrency limit, on_limit, run timeout and max_in_flight) made those of the worker's
-- definition, in place.

create function pgflow.sync_flow_options(flow_slug text, shape jsonb)
returns jsonb
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_flow_options int[];
  v_on_limit text;
  v_steps jsonb;
  v_unmatched text;
  v_changes jsonb;
begin
  -- VALIDATE: a shape (as ensure_flow_compiled takes it) of an existing flow with the same
  -- steps; option values in range. Nothing is written before all of it passed.
  perform pgflow._check_flow_shape(sync_flow_options.flow_slug, sync_flow_options.shape);
  if jsonb_typeof(coalesce(sync_flow_options.shape -> 'options', '{}')) <> 'object'
     or exists (
       select 1 from jsonb_array_elements(sync_flow_options.shape -> 'steps') as e
       where jsonb_typeof(e.value) <> 'object' or jsonb_typeof(e.value -> 'slug') is distinct from 'string'
          or jsonb_typeof(coalesce(e.value -> 'options', '{}')) <> 'object') then
    raise exception using
      errcode = 'invalid_parameter_value',
      message = format('Shape of flow %L: each step must be an object with a "slug" string, and '
                       'every "options" an object', sync_flow_options.flow_slug);
  end if;
  select e.value ->> 'slug' into v_unmatched
  from jsonb_array_elements(sync_flow_options.shape -> 'steps') as e
  group by e.value ->> 'slug'
  having count(*) > 1
  limit 1;
  if v_unmatched is not null then
    raise exception using
      errcode = 'invalid_parameter_value',
      message = format('Step %L appears twice in the shape of flow %L', v_unmatched, sync_flow_options.flow_slug);
  end if;
  perform pg_catalog.pg_advisory_xact_lock(1, pg_catalog.hashtext(sync_flow_options.flow_slug));
  perform 1 from pgflow.flows as f where f.flow_slug = sync_flow_options.flow_slug for update;
  if not found then
    raise exception using
      errcode = 'foreign_key_violation',
      message = format('Flow %L does not exist', sync_flow_options.flow_slug),
      hint = 'Create it first (pgflow.ensure_flow_compiled); this function only changes options.';
  end if;

  -- Wanted values: the flow's (unset = create_flow's defaults 3, 5, 60, no concurrency
  -- limit, queue, no run timeout) and each step's (unset = NULL: inherit the flow's, no
  -- max_in_flight), as one row per option.
  v_flow_options := array[
    coalesce((sync_flow_options.shape -> 'options' ->> 'maxAttempts')::int, 3),
    coalesce((sync_flow_options.shape -> 'options' ->> 'baseDelay')::int, 5),
    coalesce((sync_flow_options.shape -> 'options' ->> 'timeout')::int, 60),
    (sync_flow_options.shape -> 'options' ->> 'concurrencyLimit')::int,
    (sync_flow_options.shape -> 'options' ->> 'runTimeout')::int];
  v_on_limit := coalesce(sync_flow_options.shape -> 'options' ->> 'onLimit', 'queue');
  select coalesce(jsonb_agg(jsonb_build_object(
           'slug', e.value ->> 'slug',
           'max_attempts', (e.value -> 'options' ->> 'maxAttempts')::int,
           'base_delay', (e.value -> 'options' ->> 'baseDelay')::int,
           'timeout', (e.value -> 'options' ->> 'timeout')::int,
           'start_delay', (e.value -> 'options' ->> 'startDelay')::int,
           'max_in_flight', (e.value -> 'options' ->> 'maxInFlight')::int)), '[]'::jsonb)
  into v_steps
  from jsonb_array_elements(sync_flow_options.shape -> 'steps') as e;

  select coalesce(s.step_slug, e.slug) into v_unmatched
  from (select s.step_slug from pgflow.steps as s where s.flow_slug = sync_flow_options.flow_slug) as s
  full join jsonb_to_recordset(v_steps) as e (slug text) on e.slug = s.step_slug
  where s.step_slug is null or e.slug is null
  limit 1;
  if v_unmatched is not null then
    raise exception using
      errcode = 'invalid_parameter_value',
      message = format('Step %L is not in both the shape and the stored flow %L', v_unmatched,
                       sync_flow_options.flow_slug),
      hint = 'Steps and dependencies change through pgflow.ensure_flow_compiled; this function only changes options.';
  end if;
  if v_on_limit not in ('queue', 'reject') then
    raise exception using
      errcode = 'check_violation',
      constraint = 'pgflow_py_on_limit_is_valid',
      message = format('Invalid on_limit %L for flow %L (expected queue or reject)',
                       v_on_limit, sync_flow_options.flow_slug);
  end if;

  -- CHANGES: every option whose stored value differs from the wanted one, flow first, then
  -- steps in step_index order (each integer value checked for its range first). Values are
  -- jsonb, as on_limit is text; min_value NULL marks that one.
  with wanted as (
    select null::text as step_slug, -1 as step_index, o.ord, o.option_name, o.min_value, o.stored, o.wanted
    from pgflow.flows as f
    cross join lateral (values
      (1, 'max_attempts', 0, to_jsonb(f.opt_max_attempts), to_jsonb(v_flow_options[1])),
      (2, 'base_delay', 0, to_jsonb(f.opt_base_delay), to_jsonb(v_flow_options[2])),
      (3, 'timeout', 1, to_jsonb(f.opt_timeout), to_jsonb(v_flow_options[3])),
      (4, 'concurrency_limit', 1, to_jsonb(f.opt_concurrency_limit), to_jsonb(v_flow_options[4])),
      (5, 'on_limit', null, to_jsonb(f.opt_on_limit), to_jsonb(v_on_limit)),
      (6, 'run_timeout', 1, to_jsonb(f.opt_run_timeout), to_jsonb(v_flow_options[5]))
    ) as o (ord, option_name, min_value, stored, wanted)
    where f.flow_slug = sync_flow_options.flow_slug
    union all
    select s.step_slug, s.step_index, o.ord, o.option_name, o.min_value, o.stored, o.wanted
    from pgflow.steps as s
    join jsonb_to_recordset(v_steps) as e (
      slug text, max_attempts int, base_delay int, timeout int, start_delay int, max_in_flight int
    ) on e.slug = s.step_slug
    cross join lateral (values
      (1, 'max_attempts', 0, to_jsonb(s.opt_max_attempts), to_jsonb(e.max_attempts)),
      (2, 'base_delay', 0, to_jsonb(s.opt_base_delay), to_jsonb(e.base_delay)),
      (3, 'timeout', 1, to_jsonb(s.opt_timeout), to_jsonb(e.timeout)),
      (4, 'start_delay', 0, to_jsonb(s.opt_start_delay), to_jsonb(e.start_delay)),
      (5, 'max_in_flight', 1, to_jsonb(s.opt_max_in_flight), to_jsonb(e.max_in_flight))
    ) as o (ord, option_name, min_value, stored, wanted)
    where s.flow_slug = sync_flow_options.flow_slug
  ),
  checked as materialized (
    select w.*,
           case when w.min_value is not null
             then pgflow._validate_option(w.option_name, (w.wanted)::int, w.min_value)
           end as valid
    from wanted as w
  )
  select coalesce(jsonb_agg(jsonb_build_object(
           'step_slug', c.step_slug, 'option', c.option_name, 'from', c.stored, 'to', c.wanted)
           order by c.step_index, c.ord) filter (where c.stored is distinct from c.wanted), '[]'::jsonb)
  into v_changes
  from checked as c;

  if v_changes = '[]'::jsonb then
    return v_changes;
  end if;

  -- MUTATE: the flow's options, then its steps'.
  update pgflow.flows as f
  set opt_max_attempts = v_flow_options[1], opt_base_delay = v_flow_options[2],
      opt_timeout = v_flow_options[3], opt_concurrency_limit = v_flow_options[4],
      opt_on_limit = v_on_limit, opt_run_timeout = v_flow_options[5]
  where f.flow_slug = sync_flow_options.flow_slug;
  update pgflow.steps as s
  set opt_max_attempts = e.max_attempts, opt_base_delay = e.base_delay, opt_timeout = e.timeout,
      opt_start_delay = e.start_delay, opt_max_in_flight = e.max_in_flight
  from jsonb_to_recordset(v_steps) as e (
    slug text, max_attempts int, base_delay int, timeout int, start_delay int, max_in_flight int
  )
  where s.flow_slug = sync_flow_options.flow_slug and e.slug = s.step_slug
    and (s.opt_max_attempts, s.opt_base_delay, s.opt_timeout, s.opt_start_delay, s.opt_max_in_flight)
        is distinct from (e.max_attempts, e.base_delay, e.timeout, e.start_delay, e.max_in_flight);
  return v_changes;
end;
$$;

comment on function pgflow.sync_flow_options(text, jsonb) is
'Makes the options of the stored flow flow_slug those of shape (the format of
ensure_flow_compiled: {"options": {maxAttempts, baseDelay, timeout, concurrencyLimit,
onLimit, runTimeout}, "steps": [{"slug", "options": {maxAttempts, baseDelay, timeout,
startDelay, maxInFlight}}, ...]}; delays and timeouts in seconds), in place: an option the
shape leaves out goes back to its default (flow: 3 attempts, 5 s base delay, 60 s
timeout, no concurrency limit, on_limit queue, no run timeout; step: NULL, inherit the
flow''s, no max_in_flight). Runs and tasks are kept; retries, delays and timeouts decided
after the call use the new values, as do later run starts and slot decisions
(concurrency_limit, on_limit; run_timeout: a run''s deadline is fixed when it starts) and
later task starts (max_in_flight). Returns the changes, flow first then steps in step_index order:
[{"step_slug": null | slug, "option": "max_attempts" | "base_delay" | "timeout" |
"concurrency_limit" | "on_limit" | "run_timeout" (flow) | "start_delay" | "max_in_flight"
(step), "from": old, "to": new}, ...] (on_limit values are strings, the others integers or
null); [] when nothing differed (a repeated call returns []). Locks like
ensure_flow_compiled (pg_advisory_xact_lock(1, hashtext(flow_slug))). Raises, writing
nothing: invalid_parameter_value when shape is not an object with a "steps" array, a step
is not an object with a "slug" string, an "options" is not an object, a slug appears
twice, or its steps are not exactly the stored ones (structure changes go through
ensure_flow_compiled);
foreign_key_violation for an unknown flow; check_violation "Option <name> must be >= <min>
(got <value>)" for a value out of range (concurrency_limit, run_timeout and max_in_flight:
>= 1), and (constraint pgflow_py_on_limit_is_valid) for an onLimit other than queue or
reject; invalid_text_representation for a value that is not an integer. pgflow-py
extension (upstream keeps the stored options).';
