import { runService } from '@svc/kit';
import { FlowsApp } from './app';
import { flowsConfig } from './config';

runService((env) => new FlowsApp(flowsConfig(env)));
