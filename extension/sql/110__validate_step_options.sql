-- _validate_step_options: one clear error for a step option out of range (add_step's
-- options beyond the slug and the dependencies).

create function pgflow._validate_step_options(
  step_slug text,
  max_attempts int,
  base_delay int,
  timeout int,
  start_delay int,
  required_input_pattern jsonb,
  forbidden_input_pattern jsonb,
  when_unmet text,
  when_exhausted text
)
returns void
language plpgsql
immutable
set search_path = pg_catalog, pg_temp
as $$
begin
  perform pgflow._validate_option('max_attempts', _validate_step_options.max_attempts, 0);
  perform pgflow._validate_option('base_delay', _validate_step_options.base_delay, 0);
  perform pgflow._validate_option('timeout', _validate_step_options.timeout, 1);
  perform pgflow._validate_option('start_delay', _validate_step_options.start_delay, 0);
  if coalesce(_validate_step_options.when_unmet, '') not in ('fail', 'skip', 'skip-cascade') then
    raise exception using
      errcode = 'check_violation',
      constraint = 'when_unmet_is_valid',
      message = format('Invalid when_unmet %L for step %L (expected fail, skip or skip-cascade)',
                       _validate_step_options.when_unmet, _validate_step_options.step_slug);
  end if;
  if coalesce(_validate_step_options.when_exhausted, '') not in ('fail', 'skip', 'skip-cascade') then
    raise exception using
      errcode = 'check_violation',
      constraint = 'when_exhausted_is_valid',
      message = format('Invalid when_exhausted %L for step %L (expected fail, skip or skip-cascade)',
                       _validate_step_options.when_exhausted, _validate_step_options.step_slug);
  end if;
  if jsonb_typeof(_validate_step_options.required_input_pattern) is distinct from 'object'
     and _validate_step_options.required_input_pattern is not null then
    raise exception using
      errcode = 'check_violation',
      constraint = 'required_input_pattern_is_object',
      message = format('required_input_pattern of step %L must be a JSON object (got %s)',
                       _validate_step_options.step_slug, jsonb_typeof(_validate_step_options.required_input_pattern));
  end if;
  if jsonb_typeof(_validate_step_options.forbidden_input_pattern) is distinct from 'object'
     and _validate_step_options.forbidden_input_pattern is not null then
    raise exception using
      errcode = 'check_violation',
      constraint = 'forbidden_input_pattern_is_object',
      message = format('forbidden_input_pattern of step %L must be a JSON object (got %s)',
                       _validate_step_options.step_slug, jsonb_typeof(_validate_step_options.forbidden_input_pattern));
  end if;
end;
$$;

comment on function pgflow._validate_step_options(text, int, int, int, int, jsonb, jsonb, text, text) is
'Checks the options add_step takes for step step_slug and raises on the first one out of
range, writing nothing: max_attempts (>= 0), base_delay (seconds, >= 0), timeout (seconds,
>= 1) and start_delay (seconds, >= 0) through _validate_option (NULL passes: inherited
from the flow); check_violation (constraint when_unmet_is_valid / when_exhausted_is_valid)
for a mode other than fail, skip or skip-cascade, NULL included; check_violation
(constraint required_input_pattern_is_object / forbidden_input_pattern_is_object) for a
pattern that is not a JSON object (NULL passes). Returns nothing when all are valid.
pgflow-py internal.';
