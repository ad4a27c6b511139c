-- Schema and install bookkeeping.
-- Installed with CREATE EXTENSION the schema comes from pgflow.control; installed as plain
-- SQL (managed Postgres without custom extensions) the script creates it itself.
do $$
begin
  if not exists (select 1 from pg_catalog.pg_extension where extname = 'pgflow') then
    create schema if not exists pgflow;
  end if;
end
$$;

-- One row per schema version applied to this database, by either install path.
create table pgflow.installed_versions (
  version text primary key,
  installed_at timestamptz not null default now(),
  install_method text not null,
  constraint install_method_is_valid check (install_method in ('extension', 'sql'))
);

insert into pgflow.installed_versions (version, install_method)
select
  '@PGFLOW_VERSION@',
  case when exists (select 1 from pg_catalog.pg_extension where extname = 'pgflow')
    then 'extension' else 'sql' end;

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
