-- is_valid_slug: the slug rule. Loaded before the tables, whose CHECK constraints use it.

create function pgflow.is_valid_slug(slug text)
returns boolean
language sql
immutable
set search_path = pg_catalog, pg_temp
as $$
  select slug is not null
    and slug <> ''
    and length(slug) <= 128
    and slug ~ '^[a-zA-Z_][a-zA-Z0-9_]*$'
    and slug <> 'run';
$$;

comment on function pgflow.is_valid_slug(text) is
'True iff slug is a valid flow or step slug: not null, 1..128 characters, matching
^[a-zA-Z_][a-zA-Z0-9_]*$, and not the reserved word run. Never raises. As upstream pgflow.';
