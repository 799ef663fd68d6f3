mod runs;
