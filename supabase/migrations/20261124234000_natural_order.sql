-- Issue 21: names sorted as people read them ("Product 2" before "Product 10"), for the lists that sort by
-- a name or code.
create collation if not exists private.natural_order (provider = icu, locale = 'und-u-kn-true');
