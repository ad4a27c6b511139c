-- _check_start_options: the rules of start_flow's keys and deadline.

create function pgflow._check_start_options(idempotency_key text, concurrency_key text, deadline timestamptz)
returns void
language plpgsql
stable
set search_path = pg_catalog, pg_temp
as $$
declare
  v_now timestamptz := pgflow._now();
begin
  perform pgflow._check_run_key('start_flow', 'idempotency_key', _check_start_options.idempotency_key);
  perform pgflow._check_run_key('start_flow', 'concurrency_key', _check_start_options.concurrency_key);
  if _check_start_options.deadline <= v_now then
    raise exception using
      errcode = 'invalid_parameter_value',
      message = format('start_flow: deadline %s is not in the future (now is %s)',
                       _check_start_options.deadline, v_now),
      hint = 'Pass a later time, or NULL for the flow''s run_timeout (if any).';
  end if;
  if not isfinite(_check_start_options.deadline) or _check_start_options.deadline >= '9999-01-01 00:00:00+00' then
    raise exception using
      errcode = 'invalid_parameter_value',
      message = format('start_flow: deadline %s is too far away (it must be before 9999-01-01 00:00:00+00)',
                       _check_start_options.deadline),
      hint = 'Pass NULL for no deadline.';
  end if;
end;
$$;

comment on function pgflow._check_start_options(text, text, timestamptz) is
'Checks start_flow''s trailing arguments (each may be NULL): idempotency_key and
concurrency_key as _check_run_key does (not blank, at most 255 characters), deadline after
the engine''s time (pgflow._now()) and before 9999-01-01 (finite). Raises
invalid_parameter_value, writing nothing. pgflow-py internal, called by start_flow only
when one of them is given.';
