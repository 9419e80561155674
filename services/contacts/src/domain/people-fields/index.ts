export { coerceValue, type FieldValue, type ValueSource } from './coerce';
export { countContactValues, deleteContactValues, readAttributes, type AttributeMap } from './read';
export {
  writePeopleFieldValues,
  type SkippedValue,
  type ValuePatch,
  type ValueWriteOptions,
  type ValueWriteResult,
} from './write';
