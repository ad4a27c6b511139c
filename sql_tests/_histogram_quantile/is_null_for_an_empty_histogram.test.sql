begin;
select plan(4);

-- TEST: nothing counted -> NULL, whatever the quantile
select is(pgflow._histogram_quantile('{}'::int[], 0.5), null, '{} -> NULL');
select is(pgflow._histogram_quantile('{0,0,0}'::int[], 0.5), null, 'all zeros -> NULL');
select is(pgflow._histogram_quantile('{0,0,0}'::int[], 1), null, 'all zeros, quantile 1 -> NULL');
select is(pgflow._histogram_quantile(null::int[], 0.95), null, 'a NULL histogram -> NULL');

select * from finish();
rollback;
