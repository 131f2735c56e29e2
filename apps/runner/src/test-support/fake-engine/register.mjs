// Node module hooks that add the test-only engine the way "Adding an engine" says: one entry in
// ENGINE_FACTS and one line in DRIVERS, made to the files' text as they load.
import { register } from 'node:module';

register('./hooks.mjs', import.meta.url);
