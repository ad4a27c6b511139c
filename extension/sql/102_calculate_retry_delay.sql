-- calculate_retry_delay: retry delay in seconds: floor(base_delay * 2^attempts_count).

create function pgflow.calculate_retry_delay(base_delay numeric, attempts_count int)
returns int
language sql
immutable
set search_path = pg_catalog, pg_temp
as $$
  select floor(base_delay * power(2, attempts_count))::int;
$$;

comment on function pgflow.calculate_retry_delay(numeric, int) is
'Retry delay in seconds: floor(base_delay * 2^attempts_count). base_delay in seconds;
attempts_count is the number of attempts already made (so the first retry waits
2 x base_delay). As upstream pgflow.';
