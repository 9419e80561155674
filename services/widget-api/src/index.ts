export { WidgetApiApp, type WidgetDeps } from './app';
export { widgetConfig, widgetConfigSchema, type WidgetConfig } from './config';
export { widgetData } from './data';
export { API_PREFIX } from './http/routes';
