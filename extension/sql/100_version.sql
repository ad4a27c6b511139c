-- version: returns the newest pgflow schema version installed in this database (text such as
-- 0.1.0), for either install path (CREATE EXTENSION or plain SQL).

create function pgflow.version()
returns text
language sql
stable
set search_path = pg_catalog, pg_temp
as $$
  select v.version
  from pgflow.installed_versions as v
  order by string_to_array(substring(v.version from '^[0-9]+(?:\.[0-9]+)*'), '.')::int[] desc, v.installed_at desc
  limit 1;
$$;

comment on function pgflow.version() is
'Returns the newest pgflow schema version installed in this database (text such as 0.1.0),
for either install path (CREATE EXTENSION or plain SQL). pgflow-py extension; upstream has
no equivalent.';
