begin;
select plan(1);

-- SETUP: a minimal shape with only slugs (and dependencies)
select pgflow_tests.reset_db();
select pgflow._create_flow_from_shape('from_shape',
  '{"steps": [{"slug": "a", "dependencies": []}, {"slug": "b", "dependencies": ["a"]}]}');

-- TEST: stepType single, whenUnmet skip, whenExhausted fail, no patterns
select results_eq(
  $$ select step_slug, step_type, when_unmet, when_exhausted, required_input_pattern, forbidden_input_pattern
     from pgflow.steps where flow_slug = 'from_shape' order by step_index $$,
  $$ values ('a'::text, 'single'::text, 'skip'::text, 'fail'::text, null::jsonb, null::jsonb),
            ('b', 'single', 'skip', 'fail', null, null) $$,
  'missing keys take the defaults single / skip / fail / no pattern');

select * from finish();
rollback;
