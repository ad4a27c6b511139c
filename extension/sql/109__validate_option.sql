-- _validate_option: one clear error for an option out of range.

create function pgflow._validate_option(option_name text, option_value int, min_value int)
returns void
language plpgsql
immutable
set search_path = pg_catalog, pg_temp
as $$
begin
  if option_value is not null and option_value < min_value then
    raise exception using
      errcode = 'check_violation',
      message = format('Option %s must be >= %s (got %s)', option_name, min_value, option_value);
  end if;
end;
$$;

comment on function pgflow._validate_option(text, int, int) is
'Raises check_violation "Option <name> must be >= <min> (got <value>)" when option_value is
below min_value; NULL (inherit / default) always passes. Used by create_flow and add_step.';
