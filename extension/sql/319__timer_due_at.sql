-- _timer_due_at: read a timer's due time at its path (input.<key>... or <dep>.<key>...).

create function pgflow._timer_due_at(
  run_id uuid,
  until_path text,
  out due_at timestamptz,
  out error_message text
)
language plpgsql
stable
set search_path = pg_catalog, pg_temp
as $$
declare
  v_root text := split_part(_timer_due_at.until_path, '.', 1);
  v_keys text[] := (string_to_array(_timer_due_at.until_path, '.'))[2:];
  v_doc jsonb;
  v_value jsonb;
  v_text text;
begin
  if v_root = 'input' then
    select r.input into v_doc from pgflow.runs as r where r.run_id = _timer_due_at.run_id;
  else
    select ss.output into v_doc
    from pgflow.step_states as ss
    where ss.run_id = _timer_due_at.run_id and ss.step_slug = v_root and ss.status = 'completed';
  end if;
  v_value := v_doc #> v_keys;
  if v_value is null or jsonb_typeof(v_value) <> 'string' then
    error_message := format('Timer: %s is not an ISO 8601 timestamp (got %s)', _timer_due_at.until_path,
                            coalesce(left(v_value::text, 100), 'nothing'));
    return;
  end if;
  v_text := v_value #>> '{}';
  -- Only ISO 8601 dates and date-times ('now', 'tomorrow', 'infinity' are not times).
  -- (An offset only after a time: a date alone is midnight UTC.)
  if v_text !~ '^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|z|[+-]\d{2}(:?\d{2})?)?)?$' then
    error_message := format('Timer: %s is not an ISO 8601 timestamp (got %s)', _timer_due_at.until_path,
                            left(v_value::text, 100));
    return;
  end if;
  begin
    if v_text ~ '[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|z|[+-]\d{2}(:?\d{2})?)$' then
      due_at := v_text::timestamptz;
    else
      due_at := v_text::timestamp at time zone 'UTC';
    end if;
  exception when others then
    error_message := format('Timer: %s is not a valid timestamp (got %s): %s', _timer_due_at.until_path,
                            left(v_value::text, 100), sqlerrm);
  end;
end;
$$;

comment on function pgflow._timer_due_at(uuid, text) is
'Reads the due time of a timer of run run_id at until_path: input.<key>... in the run
input, <dep_slug>.<key>... in the output of completed step dep_slug. The value must be a
JSON string holding an ISO 8601 date (midnight UTC) or date-time (with an offset or Z;
without one: UTC). Returns (due_at,
NULL), or (NULL, error_message) saying what was found instead (nothing, another JSON type,
another text, an impossible date). Never raises. pgflow-py internal.';
