export { CollectorFieldset, CollectorInput, CollectorLabel, PLATFORMS, isEmptyAnswer } from "./collector-form.tsx";
export type { CollectorFieldValue, CollectorFormDefinition, CollectorFormField, CollectorFormTexts } from "./collector-form.tsx";
