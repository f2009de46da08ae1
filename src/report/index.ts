export { buildReportData } from './data.js';
export type { ReportBlock, ReportData, ReportDataOptions, ReportDecision, ReportEvent, ReportPoint, ReportRequest, ReportUsage } from './data.js';
export { escapeHtml } from './escape-html.js';
export { renderReport } from './render-report.js';
export type { RenderReportOptions } from './render-report.js';
export { defaultToolPolicies, toolCacheSavings } from './tool-savings.js';
export type { ToolCacheSavings, ToolSavingsRow } from './tool-savings.js';
