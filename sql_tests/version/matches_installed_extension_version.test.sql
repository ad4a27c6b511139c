begin;
select plan(2);

-- TEST: version() reports the version CREATE EXTENSION installed
select is(
  pgflow.version(),
  (select e.extversion::text from pg_extension as e where e.extname = 'pgflow'),
  'version() equals the installed extension version');

-- TEST: the install is recorded with its method
select is(
  (select v.install_method from pgflow.installed_versions as v where v.version = pgflow.version()),
  'extension',
  'installed_versions records the CREATE EXTENSION install as method extension');

select * from finish();
rollback;
