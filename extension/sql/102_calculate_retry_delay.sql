-- calculate_retry_delay: retry delay in seconds: floor(base_delay * 2^attempts_count), at most
-- the largest int.

create function pgflow.calculate_retry_delay(base_delay numeric, attempts_count int)
returns int
language sql
immutable
set search_path = pg_catalog, pg_temp
as $$
  -- Capped, not an integer overflow: a step with many attempts (base_delay 60 s overflows
  -- an int at the 26th) would otherwise have its failure report refused at every attempt.
  select least(floor(base_delay * power(2::numeric, least(attempts_count, 1000))), 2147483647)::int;
$$;

comment on function pgflow.calculate_retry_delay(numeric, int) is
'Retry delay in seconds: floor(base_delay * 2^attempts_count). base_delay in seconds;
attempts_count is the number of attempts already made (so the first retry waits
2 x base_delay). As upstream pgflow, except that the delay is capped at 2147483647 s (the
largest int, 68 years) where upstream raises numeric_value_out_of_range.';
