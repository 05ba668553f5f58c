/** Shapes of the simulator's admin operations (sandbox lines). */
import { Type } from 'typebox';

export const SimulatedLineParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100, description: 'a line on the simulator driver (else 1011)' }) });
