import { runService } from '@svc/kit';
import { FlowsApp } from './app';
import { flowsConfig } from './config';

runService(() => new FlowsApp(flowsConfig()));
