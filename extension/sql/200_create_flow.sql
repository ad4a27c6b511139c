-- create_flow: define a flow and its pgmq queue. Idempotent.

create function pgflow.create_flow(
  flow_slug text,
  max_attempts int default null,
  base_delay int default null,
  timeout int default null,
  concurrency_limit int default null,
  on_limit text default null,
  run_timeout int default null
)
returns pgflow.flows
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_flow pgflow.flows;
  v_clash text;
begin
  -- VALIDATE options first: a bad value raises even when the flow already exists.
  perform pgflow._validate_option('max_attempts', create_flow.max_attempts, 0);
  perform pgflow._validate_option('base_delay', create_flow.base_delay, 0);
  perform pgflow._validate_option('timeout', create_flow.timeout, 1);
  perform pgflow._validate_option('concurrency_limit', create_flow.concurrency_limit, 1);
  perform pgflow._validate_option('run_timeout', create_flow.run_timeout, 1);
  if coalesce(create_flow.on_limit, 'queue') not in ('queue', 'reject') then
    raise exception using
      errcode = 'check_violation',
      constraint = 'pgflow_py_on_limit_is_valid',
      message = format('Invalid on_limit %L for flow %L (expected queue or reject)',
                       create_flow.on_limit, create_flow.flow_slug),
      hint = 'queue: a run over the concurrency limit waits in status queued; reject: start_flow raises.';
  end if;

  -- GUARD: an existing flow is returned unchanged (options are not updated).
  select f.* into v_flow from pgflow.flows as f where f.flow_slug = create_flow.flow_slug;
  if found then
    return v_flow;
  end if;

  -- VALIDATE the new slug: every rejection happens before anything is written.
  if not pgflow.is_valid_slug(create_flow.flow_slug) then
    raise exception using
      errcode = 'check_violation',
      constraint = 'slug_is_valid',
      message = format('Invalid flow slug %L', create_flow.flow_slug),
      hint = 'A slug has 1 to 128 characters matching ^[a-zA-Z_][a-zA-Z0-9_]*$ and is not "run".';
  end if;
  if length(create_flow.flow_slug) > 47 then
    raise exception using
      errcode = 'check_violation',
      constraint = 'slug_fits_queue_name',
      message = format('Flow slug %L is %s characters long; at most 47 are allowed',
                       create_flow.flow_slug, length(create_flow.flow_slug)),
      hint = 'Each flow has a pgmq queue named like its slug, and pgmq limits queue names to 47 characters.';
  end if;
  select f.flow_slug into v_clash
  from pgflow.flows as f
  where lower(f.flow_slug) = lower(create_flow.flow_slug);
  if found then
    raise exception using
      errcode = 'unique_violation',
      message = format('Flow slug %L clashes with existing flow %L', create_flow.flow_slug, v_clash),
      hint = 'pgmq queue tables are lower-cased, so two flow slugs may not differ only in case.';
  end if;

  -- MUTATE
  insert into pgflow.flows (
    flow_slug, opt_max_attempts, opt_base_delay, opt_timeout,
    opt_concurrency_limit, opt_on_limit, opt_run_timeout
  )
  values (
    create_flow.flow_slug,
    coalesce(create_flow.max_attempts, 3),
    coalesce(create_flow.base_delay, 5),
    coalesce(create_flow.timeout, 60),
    create_flow.concurrency_limit,
    coalesce(create_flow.on_limit, 'queue'),
    create_flow.run_timeout
  )
  returning * into v_flow;

  if not exists (select 1 from pgmq.meta as m where m.queue_name = create_flow.flow_slug) then
    perform pgmq.create(create_flow.flow_slug);
    perform pgflow._grant_queue_to_upstream_worker(create_flow.flow_slug);
  end if;

  return v_flow;
end;
$$;

comment on function pgflow.create_flow(text, int, int, int, int, text, int) is
'Creates flow flow_slug and its pgmq queue (named like the slug) and returns the flows row.
max_attempts (total attempts, first try included, >= 0; default 3), base_delay (seconds,
>= 0; default 5) and timeout (seconds per task, >= 1; default 60): NULL means the default.
pgflow-py trailing options (NULL: the default): concurrency_limit (>= 1; default none):
at most that many runs per concurrency key hold a slot (started or paused), see
start_flow; on_limit (queue, the default: a run over the limit waits in status queued;
reject: start_flow raises; stored without a concurrency_limit too, where it has no
effect); run_timeout (seconds, >= 1; default none): the default deadline of a run
is its start plus run_timeout.
Idempotent: an existing flow is returned unchanged and its options are not updated
(pgflow.sync_flow_options changes them).
Raises check_violation for an invalid slug, a slug over 47 characters (pgmq queue-name
limit; upstream lets pgmq fail), an option out of range ("Option <name> must be >= <min>
(got <value>)", also when the flow exists) or an on_limit other than queue or reject
(constraint pgflow_py_on_limit_is_valid, also when the flow exists); unique_violation when
the slug differs only in case from an existing flow (pgmq lower-cases queue tables).
Nothing is written on error. As upstream pgflow 0.14.1 create_flow, stricter where noted.';
