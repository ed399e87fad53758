/**
 * The warm build process (api/site/warm-builder.ts forks this file): runs build requests from its
 * parent one after another. The command line only: the protocol is build/protocol.ts, the work
 * build/warm-worker.ts.
 */
import { serveBuildRequests } from '../build/warm-worker.ts';

serveBuildRequests();
