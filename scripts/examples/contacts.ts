// Examples of the contacts area. Placeholder until the area's spec lands.
import type { AreaBuilder } from './world.js';

const build: AreaBuilder = () => ({});
export default build;
