-- _bounded_error_text: the error text a failure report stores (its head and tail when long).

create function pgflow._bounded_error_text(error_message text)
returns text
language sql
immutable
parallel safe
set search_path = pg_catalog, pg_temp
as $$
  -- At most 16384 characters are kept: the first 8192 and the last 8192 around a line
  -- saying how many were cut (an exception's type is at the head, the failing frame at
  -- the tail).
  select case
    when length(_bounded_error_text.error_message) <= 16384 then _bounded_error_text.error_message
    else left(_bounded_error_text.error_message, 8192)
      || format(E'\n[... %s characters cut ...]\n', length(_bounded_error_text.error_message) - 16384)
      || right(_bounded_error_text.error_message, 8192)
  end
$$;

comment on function pgflow._bounded_error_text(text) is
'The error text stored for a failure report: error_message itself when it has at most 16384
characters (NULL stays NULL); otherwise its first 8192 and last 8192 characters around the
line "[... <n> characters cut ...]" (n = length - 16384), so a task, its step and every
read of them (get_run_with_states, step:failed events) carry a bounded text. Characters,
not bytes: a multibyte text is never cut inside a character. Used by fail_tasks (and so
fail_task) on every report. pgflow-py extension (upstream stores the text whole).';
